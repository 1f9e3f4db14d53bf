// Validation of resources built in-process (pipelines, converters), where fields may be undefined.
import { describe, expect, it } from "vitest";
import { validateResource } from "../../../src/features/fhir/validate";

describe("validation of in-process resources", () => {
  it("treats undefined fields as absent, as JSON would", () => {
    expect(validateResource({ resourceType: "Patient", gender: undefined, name: [{ family: "X", given: undefined }] })).toEqual([]);
  });

  it("still requires what is required when it is undefined", () => {
    const issues = validateResource({ resourceType: "Observation", status: undefined, code: { text: "x" } });
    expect(issues.map((i) => i.path)).toEqual(["Observation.status"]);
  });
});
