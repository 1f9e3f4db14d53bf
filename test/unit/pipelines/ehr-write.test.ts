// Pure parts of the EHR write node: Retry-After in both spellings, and turning our resource back
// into the EHR's (ids, source identifier, meta, references).
import { describe, expect, it } from "vitest";
import { retryAfterMs, toEhrResource } from "../../../src/features/pipelines/nodes/ehr-write";

describe("retryAfterMs", () => {
  it("reads delay-seconds and HTTP-dates, and nothing else", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs("soon", now)).toBeUndefined();
  });
});

describe("toEhrResource", () => {
  const lookup = async (type: string, id: string) => (type === "Patient" && id === "local-p" ? "ehr-p" : undefined);
  it("drops our id, meta and source identifier, rewrites references, keeps the rest", async () => {
    const ours = {
      resourceType: "Observation",
      id: "local-o",
      meta: { versionId: "3", lastUpdated: "x", source: "http://ehr/Observation/1", security: [{ code: "R" }] },
      identifier: [{ system: "urn:cdis:connector:c1", value: "ehr-o" }, { system: "urn:lab", value: "L1" }],
      subject: { reference: "Patient/local-p" },
      performer: [{ reference: "Practitioner/unknown" }, { reference: "http://ehr/fhir/Practitioner/9" }, { reference: "#c1" }],
      contained: [{ resourceType: "Practitioner", id: "c1", managingOrganization: { reference: "Patient/local-p" } }],
    };
    const out = await toEhrResource(ours, "c1", "http://ehr/fhir/", lookup, "keep");
    expect(out).toEqual({
      resourceType: "Observation",
      meta: { security: [{ code: "R" }] },
      identifier: [{ system: "urn:lab", value: "L1" }],
      subject: { reference: "Patient/ehr-p" },
      performer: [{ reference: "Practitioner/unknown" }, { reference: "Practitioner/9" }, { reference: "#c1" }],
      contained: [{ resourceType: "Practitioner", id: "c1", managingOrganization: { reference: "Patient/ehr-p" } }],
    });
    await expect(toEhrResource(ours, "c1", "http://ehr/fhir", lookup, "fail")).rejects.toMatchObject({ code: "UNMAPPED_REFERENCE" });
  });

  it("fails a malformed reference under unmapped_references fail; maps a versioned one to the EHR's copy", async () => {
    const withSubject = (reference: string) => ({ resourceType: "Observation", subject: { reference } });
    for (const reference of ["Patient/", "patient/local-p", "Patient/local-p/extra", "Patient", ""]) {
      await expect(toEhrResource(withSubject(reference), "c1", "http://ehr/fhir", lookup, "fail"), reference).rejects.toMatchObject({ code: "INVALID_REFERENCE" });
      expect(await toEhrResource(withSubject(reference), "c1", "http://ehr/fhir", lookup, "keep")).toEqual(withSubject(reference));
    }
    expect(await toEhrResource(withSubject("Patient/local-p/_history/3"), "c1", "http://ehr/fhir", lookup, "fail")).toEqual(withSubject("Patient/ehr-p"));
  });
});
