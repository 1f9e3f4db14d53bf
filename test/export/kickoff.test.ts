// Kick-off validation per the Bulk Data IG (and the SMART bdt suite's expectations).
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/platform/errors";
import { EXPORTABLE_TYPES } from "../../src/features/export/exportable";
import { type KickoffInput, parseKickoff } from "../../src/features/export/kickoff";

const base = "https://cdis.test/fhir/r4/org-1/$export";
const ok = (overrides: Partial<KickoffInput> = {}) =>
  parseKickoff({ level: "system", method: "GET", url: base, accept: "application/fhir+json", prefer: "respond-async", now: new Date("2026-11-22T00:00:00Z"), ...overrides });

function rejection(overrides: Partial<KickoffInput>): ApiError {
  try {
    ok(overrides);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected a rejection");
}

describe("export kick-off", () => {
  it("defaults to every exportable type and echoes the request URL", () => {
    const req = ok();
    expect(req.types).toEqual([...EXPORTABLE_TYPES]);
    expect(req.requestUrl).toBe(base);
  });

  it("requires Accept: application/fhir+json and Prefer: respond-async", () => {
    expect(rejection({ accept: undefined }).status).toBe(400);
    expect(rejection({ accept: "text/html" }).status).toBe(400);
    expect(rejection({ prefer: undefined }).message).toMatch(/respond-async/);
    expect(ok({ prefer: "respond-async, handling=lenient" }).types.length).toBeGreaterThan(0);
  });

  it.each([
    ["application/fhir+json", true],
    ["application/fhir+json; charset=utf-8", true],
    ["text/html, */*;q=0.1", true],
    ["application/json", false],
    ["application/json+fhir", false],
    ["application/fhir+json;q=0", false],
    ["", false],
  ])("Accept %j accepted: %s", (accept, accepted) => {
    if (accepted) expect(() => ok({ accept })).not.toThrow();
    else expect(rejection({ accept }).message).toMatch(/Accept: application\/fhir\+json/);
  });

  it("lists the parameters it ignores under handling=lenient", () => {
    const url = `${base}?includeAssociatedData=_custom&_type=Patient&foo=1`;
    expect(rejection({ url }).details.map((d) => d.path)).toEqual(["foo", "includeAssociatedData"]);
    const req = ok({ url, prefer: "respond-async, handling=lenient" });
    expect(req.types).toEqual(["Patient"]);
    expect(req.associated).toBeUndefined();
    expect(req.ignored).toEqual([
      "Unsupported parameter foo was ignored (Prefer: handling=lenient)",
      "Unsupported includeAssociatedData value _custom was ignored (Prefer: handling=lenient)",
    ]);
    expect(ok({ url: `${base}?_type=Patient` }).ignored).toBeUndefined();
  });

  it.each(["application/fhir+ndjson", "application/ndjson", "ndjson"])("accepts _outputFormat=%s", (f) => {
    expect(() => ok({ url: `${base}?_outputFormat=${encodeURIComponent(f)}` })).not.toThrow();
  });

  it.each(["application/xml", "text/html", "x-custom"])("rejects _outputFormat=%s", (f) => {
    expect(rejection({ url: `${base}?_outputFormat=${encodeURIComponent(f)}` }).details[0]?.path).toBe("_outputFormat");
  });

  it("validates _type, and keeps Patient-level export inside the compartment", () => {
    expect(ok({ url: `${base}?_type=Patient,Observation,Patient` }).types).toEqual(["Patient", "Observation"]);
    expect(rejection({ url: `${base}?_type=MissingType` }).details[0]?.message).toMatch(/not an exportable/);
    expect(rejection({ url: `${base}?_type=Binary` }).status).toBe(400);
  });

  it("validates _since: a valid instant or date, never in the future", () => {
    expect(ok({ url: `${base}?_since=2024-01-02T03:04:05%2B02:00` }).since).toBe("2024-01-02T01:04:05.000Z");
    expect(ok({ url: `${base}?_since=2024-03` }).since).toBe("2024-03-01T00:00:00.000Z");
    expect(rejection({ url: `${base}?_since=0000-60-01T30:70:80%2B05:00` }).details[0]?.path).toBe("_since");
    expect(rejection({ url: `${base}?_since=2057-01-01T00:00:00%2B05:00` }).details[0]?.message).toMatch(/future/);
  });

  it("parses _typeFilter into per-type queries, percent-encoded commas included", () => {
    const url = `${base}?_typeFilter=${encodeURIComponent("Patient?active=true,Observation?code=1234-5%2C6789-0")}`;
    expect(ok({ url }).typeFilters).toEqual({ Patient: ["active=true"], Observation: ["code=1234-5,6789-0"] });
    expect(rejection({ url: `${base}?_typeFilter=nonsense` }).details[0]?.path).toBe("_typeFilter");
  });

  it("parses _elements per type", () => {
    expect(ok({ url: `${base}?_elements=status,Patient.name` }).elements).toEqual({ "*": ["status"], Patient: ["name"] });
    expect(rejection({ url: `${base}?_elements=a.b.c` }).status).toBe(400);
  });

  it("rejects unsupported parameters unless Prefer: handling=lenient", () => {
    expect(rejection({ url: `${base}?_foo=1` }).details[0]?.path).toBe("_foo");
    expect(rejection({ url: `${base}?includeAssociatedData=x` }).details[0]?.path).toBe("includeAssociatedData");
    expect(() => ok({ url: `${base}?includeAssociatedData=x`, prefer: "respond-async,handling=lenient" })).not.toThrow();
  });

  it("reads includeAssociatedData: comma-separated or repeated; both Provenance values mean all of them", () => {
    expect(ok({ url: `${base}?includeAssociatedData=LatestProvenanceResources` }).associated).toBe("LatestProvenanceResources");
    expect(ok({ url: `${base}?includeAssociatedData=RelevantProvenanceResources` }).associated).toBe("RelevantProvenanceResources");
    expect(ok({ url: `${base}?includeAssociatedData=LatestProvenanceResources,RelevantProvenanceResources` }).associated).toBe("RelevantProvenanceResources");
    expect(ok({ url: `${base}?includeAssociatedData=RelevantProvenanceResources&includeAssociatedData=LatestProvenanceResources` }).associated).toBe(
      "RelevantProvenanceResources",
    );
    const post = ok({ method: "POST", body: { resourceType: "Parameters", parameter: [{ name: "includeAssociatedData", valueCode: "LatestProvenanceResources" }] } });
    expect(post.associated).toBe("LatestProvenanceResources");
  });

  it("reads POST Parameters, including patient references for patient-level export", () => {
    const req = ok({
      level: "patient",
      method: "POST",
      url: "https://cdis.test/fhir/r4/org-1/Patient/$export",
      body: {
        resourceType: "Parameters",
        parameter: [
          { name: "_type", valueString: "Observation" },
          { name: "_since", valueInstant: "2025-01-01T00:00:00Z" },
          { name: "patient", valueReference: { reference: "Patient/p1" } },
          { name: "patient", valueReference: { reference: "Patient/p2" } },
        ],
      },
    });
    expect(req).toMatchObject({ types: ["Observation"], since: "2025-01-01T00:00:00.000Z", patients: ["p1", "p2"] });
    expect(rejection({ method: "POST", body: { resourceType: "Patient" } }).status).toBe(400);
    expect(rejection({ method: "POST", body: { resourceType: "Parameters", parameter: [{ name: "patient", valueReference: { reference: "Patient/x" } }] } }).details[0]?.path).toBe("patient");
  });
});
