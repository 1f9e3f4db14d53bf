// The console follows ?return_to= only to an organization's SMART authorization endpoint.
import { describe, expect, it } from "vitest";
import { returnTarget } from "../../../console/src/lib/return-to";

describe("return_to", () => {
  it("follows an authorization request's path, nothing else", () => {
    const path = "/fhir/r4/org-1/auth/authorize?response_type=code&client_id=c";
    expect(returnTarget(`?return_to=${encodeURIComponent(path)}`)).toBe(path);
    expect(returnTarget("?return_to=%2Ffhir%2Fr4%2Forg-1%2Fauth%2Fauthorize")).toBe("/fhir/r4/org-1/auth/authorize");
    for (const bad of ["https://evil.example/fhir/r4/o/auth/authorize", "//evil.example/fhir/r4/o/auth/authorize", "/fhir/r4/o/auth/token", "/settings/api-keys", "/fhir/r4/o/auth/authorizeX", ""]) {
      expect(returnTarget(`?return_to=${encodeURIComponent(bad)}`)).toBeUndefined();
    }
    expect(returnTarget("")).toBeUndefined();
  });
});
