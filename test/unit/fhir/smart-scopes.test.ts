// SMART scopes (features/fhir/scopes/): both syntaxes parse to one vocabulary, malformed scopes are
// refused with a reason, and a grant decides interactions on resources: by type and permission
// letter, by granular token conditions, and for patient/ scopes within the launch patient's
// compartment; several scopes combine by OR. The store policy built on it, and allOf.
import { describe, expect, it } from "vitest";
import { allOf } from "../../../src/features/fhir/access-all-of";
import { type AccessPolicy, PERMIT, permitAll } from "../../../src/features/fhir/access-policy";
import type { Resource } from "../../../src/features/fhir/port";
import { type ScopeInteraction, scopeGrantOf, scopesPermit, scopesPermitType } from "../../../src/features/fhir/scopes/grant";
import { smartScopePolicy } from "../../../src/features/fhir/scopes/policy";
import { parseScope, resourceScopesOf, scopeError } from "../../../src/features/fhir/scopes/syntax";
import type { Principal } from "../../../src/platform/principal";

const VITALS = "http://terminology.hl7.org/CodeSystem/observation-category|vital-signs";
const LOINC = "http://loinc.org";

const permissionsOf = (scope: string) => {
  const parsed = parseScope(scope);
  return parsed.kind === "resource" ? [...parsed.scope.permissions].join("") : parsed.kind;
};

const observation = (patient: string, category = "vital-signs", code = "8867-4"): Resource => ({
  resourceType: "Observation",
  id: `o-${patient}-${code}`,
  status: "final",
  category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: category }] }],
  code: { coding: [{ system: LOINC, code }] },
  subject: { reference: `Patient/${patient}` },
});
const patientResource = (id: string): Resource => ({ resourceType: "Patient", id });

function permits(scopes: string[], interaction: ScopeInteraction, resource: Resource, patient?: string): boolean {
  const grant = scopeGrantOf({ scopes, ...(patient !== undefined ? { patient } : {}) });
  return scopesPermit(grant, { interaction, resourceType: resource.resourceType, resource }).permit;
}

describe("SMART scope syntax", () => {
  it("maps v1 permissions onto v2 letters", () => {
    expect(permissionsOf("patient/Observation.read")).toBe("rs");
    expect(permissionsOf("user/*.write")).toBe("cud");
    expect(permissionsOf("system/*.*")).toBe("cruds");
    expect(permissionsOf("patient/Observation.rs")).toBe("rs");
    expect(permissionsOf("user/*.cruds")).toBe("cruds");
    expect(permissionsOf("system/Patient.r")).toBe("r");
  });

  it("parses granular token conditions: system|code, code, |code and system|", () => {
    const parsed = parseScope(`patient/Observation.rs?category=${VITALS}&code=8867-4`);
    expect(parsed.kind === "resource" && parsed.scope.conditions).toEqual([
      { param: "category", system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "vital-signs" },
      { param: "code", code: "8867-4" },
    ]);
    const bare = parseScope("user/Condition.rs?code=|x&category=http://s|");
    expect(bare.kind === "resource" && bare.scope.conditions).toEqual([
      { param: "code", system: "", code: "x" },
      { param: "category", system: "http://s" },
    ]);
  });

  it("ignores identity and launch scopes", () => {
    for (const s of ["openid", "fhirUser", "profile", "launch", "launch/patient", "launch/encounter", "offline_access", "online_access"]) {
      expect(parseScope(s).kind, s).toBe("other");
      expect(scopeError(s), s).toBeUndefined();
    }
    expect(resourceScopesOf(["openid", "launch/patient", "patient/Observation.rs"]).map((s) => s.text)).toEqual(["patient/Observation.rs"]);
  });

  it("refuses malformed scopes with a reason", () => {
    const cases: [string, RegExp][] = [
      ["patient/Observation", /expected <patient\|user\|system>/],
      ["group/Observation.rs", /expected/],
      ["patient/observation.rs", /not a resource type/],
      ["patient/Observation.sr", /letters of cruds, each once, in that order/],
      ["patient/Observation.rr", /each once/],
      ["patient/Observation.x", /letters of cruds/],
      ["patient/Observation.read?category=a", /v1 permissions .* take no query/],
      ["patient/Observation.rs?status=final", /only category, code, not "status"/],
      ["patient/Observation.rs?code=", /needs a token value/],
      ["patient/Observation.rs?", /empty query/],
      ["email", /expected/],
    ];
    for (const [scope, reason] of cases) expect(scopeError(scope), scope).toMatch(reason);
    // Malformed scopes in a grant grant nothing.
    expect(permits(["patient/Observation.sr"], "read", observation("p1"), "p1")).toBe(false);
  });
});

describe("SMART scope decisions", () => {
  it("decides by type and permission letter, wildcards included", () => {
    const o = observation("p1");
    expect(permits(["user/Observation.rs"], "read", o)).toBe(true);
    expect(permits(["user/Observation.rs"], "vread", o)).toBe(true);
    expect(permits(["user/Observation.rs"], "search", o)).toBe(true);
    expect(permits(["user/Observation.r"], "search", o)).toBe(false);
    expect(permits(["user/Observation.s"], "read", o)).toBe(false);
    expect(permits(["user/Observation.rs"], "create", o)).toBe(false);
    expect(permits(["user/Observation.c"], "create", o)).toBe(true);
    expect(permits(["user/Observation.u"], "update", o)).toBe(true);
    expect(permits(["user/Observation.d"], "delete", o)).toBe(true);
    expect(permits(["user/Condition.rs"], "read", o)).toBe(false);
    expect(permits(["user/*.read"], "operation", o)).toBe(true);
    expect(permits(["system/*.*"], "delete", o)).toBe(true);
    expect(permits(["user/*.write"], "read", o)).toBe(false);
  });

  it("binds patient/ scopes to the launch patient's compartment, not user/ and system/", () => {
    expect(permits(["patient/Observation.rs"], "read", observation("p1"), "p1")).toBe(true);
    expect(permits(["patient/Observation.rs"], "read", observation("p2"), "p1")).toBe(false);
    expect(permits(["patient/*.rs"], "read", patientResource("p1"), "p1")).toBe(true);
    expect(permits(["patient/*.rs"], "read", patientResource("p2"), "p1")).toBe(false);
    // No launch patient: patient/ scopes reach nothing; nor a resource outside every compartment.
    expect(permits(["patient/Observation.rs"], "read", observation("p1"))).toBe(false);
    expect(permits(["patient/*.rs"], "read", { resourceType: "Medication", id: "m" }, "p1")).toBe(false);
    expect(permits(["user/Observation.rs"], "read", observation("p2"), "p1")).toBe(true);
    expect(permits(["system/Observation.rs"], "read", observation("p2"))).toBe(true);
    // $everything names the patient without the resource's compartment.
    const grant = scopeGrantOf({ scopes: ["patient/Patient.r"], patient: "p1" });
    expect(scopesPermit(grant, { interaction: "read", resourceType: "Patient", patient: "p1" }).permit).toBe(true);
    expect(scopesPermit(grant, { interaction: "read", resourceType: "Patient", patient: "p2" }).permit).toBe(false);
  });

  it("evaluates granular scopes against the resource, and ORs scopes", () => {
    const vitals = [`patient/Observation.rs?category=${VITALS}`];
    expect(permits(vitals, "read", observation("p1"), "p1")).toBe(true);
    expect(permits(vitals, "read", observation("p1", "laboratory"), "p1")).toBe(false);
    expect(permits(["user/Observation.rs?category=vital-signs"], "read", observation("p1"))).toBe(true);
    expect(permits(["user/Observation.rs?category=http://other|vital-signs"], "read", observation("p1"))).toBe(false);
    expect(permits(["user/Observation.rs?category=|vital-signs"], "read", observation("p1"))).toBe(false);
    expect(permits([`user/Observation.rs?code=${LOINC}|8867-4`], "read", observation("p1"))).toBe(true);
    expect(permits([`user/Observation.rs?code=${LOINC}|`], "read", observation("p1", "vital-signs", "1234-5"))).toBe(true);
    expect(permits([`user/Observation.rs?code=${LOINC}|8867-4&category=laboratory`], "read", observation("p1"))).toBe(false);
    // OR: a second scope grants what the first does not.
    const either = [...vitals, "patient/Observation.rs?category=laboratory"];
    expect(permits(either, "read", observation("p1", "laboratory"), "p1")).toBe(true);
    expect(permits(either, "read", observation("p1", "social-history"), "p1")).toBe(false);
    // A code element that is a plain code (Patient.gender is not granular, but Condition.code is a CodeableConcept).
    expect(permits(["user/Condition.rs?code=http://snomed.info/sct|44054006"], "read", { resourceType: "Condition", code: { coding: [{ system: "http://snomed.info/sct", code: "44054006" }] } })).toBe(true);
  });

  it("lets a search run when any scope names its type and letter, whatever its conditions or compartment", () => {
    const type = (scopes: string[], resourceType: string) => scopesPermitType(scopeGrantOf({ scopes }), { interaction: "search", resourceType });
    expect(type([`patient/Observation.rs?category=${VITALS}`], "Observation")).toEqual(PERMIT);
    expect(type(["system/*.s"], "Encounter")).toEqual(PERMIT);
    expect(type(["system/Observation.r"], "Observation")).toEqual({ permit: false, reason: "the token's scopes do not grant system/Observation.s" });
    expect(type(["patient/Observation.rs", "system/Patient.rs"], "Condition")).toEqual({ permit: false, reason: "the token's scopes do not grant patient/Condition.s" });
  });

  it("names the missing scope, or the scopes a resource is outside of", () => {
    const grant = scopeGrantOf({ scopes: ["patient/Observation.rs"], patient: "p1" });
    expect(scopesPermit(grant, { interaction: "create", resourceType: "Observation", resource: observation("p1") })).toEqual({
      permit: false,
      reason: "the token's scopes do not grant patient/Observation.c",
    });
    const outside = scopesPermit(grant, { interaction: "read", resourceType: "Observation", resource: observation("p2") });
    expect(outside.permit === false && outside.reason).toBe("Observation/o-p2-8867-4 is outside what the token's scopes grant (patient/Observation.rs)");
    const user = scopeGrantOf({ scopes: ["user/Patient.rs"] });
    expect(scopesPermit(user, { interaction: "delete", resourceType: "Patient" })).toEqual({ permit: false, reason: "the token's scopes do not grant user/Patient.d" });
  });
});

const principal = (fhirGrant?: Principal["fhirGrant"]): Principal => ({ orgId: "o1", keyId: "k1", keyName: "k", role: "clinician", scopes: [], ...(fhirGrant ? { fhirGrant } : {}) });

describe("smartScopePolicy and allOf", () => {
  it("permits all without a grant, so the store keeps its fast paths", () => {
    expect(smartScopePolicy(principal())).toBe(permitAll);
    expect(allOf(smartScopePolicy(principal()), permitAll)).toBe(permitAll);
  });

  it("checks and filters with the grant: export reads, search searches", async () => {
    const p = principal({ scopes: ["patient/Observation.r"], patient: "p1" });
    const policy = smartScopePolicy(p);
    expect(policy.permitsAll).toBe(false);
    expect(await policy.check({ principal: p, action: "read", resourceType: "Observation", resource: observation("p1") })).toEqual(PERMIT);
    expect((await policy.check({ principal: p, action: "update", resourceType: "Observation", resource: observation("p1") })).permit).toBe(false);
    const items = [observation("p1"), observation("p2"), patientResource("p1")];
    expect(await policy.filter(p, "export", items, (r) => r)).toEqual([items[0]]);
    expect(await policy.filter(p, "search", items, (r) => r)).toEqual([]);
  });

  it("requires every policy to permit: the first denial decides, filters chain, items parse once", async () => {
    const p = principal({ scopes: ["user/Observation.rs"] });
    const denyP2: AccessPolicy = {
      check: ({ resource }) => (resource?.subject as { reference?: string } | undefined)?.reference === "Patient/p2" ? { permit: false, reason: "consent" } : PERMIT,
      filter: (_p, _a, items, resourceOf) => items.filter((i) => (resourceOf(i).subject as { reference: string }).reference !== "Patient/p2"),
      auditNote: () => ({ basis: ["Consent/c1"], purposes: [] }),
    };
    const both = allOf(smartScopePolicy(p), denyP2, permitAll);
    expect(both.permitsAll).toBe(false);
    expect(allOf(denyP2, permitAll)).toBe(denyP2);
    expect(await both.check({ principal: p, action: "read", resourceType: "Observation", resource: observation("p2") })).toEqual({ permit: false, reason: "consent" });
    expect((await both.check({ principal: p, action: "read", resourceType: "Condition" })).permit === false).toBe(true);
    expect(await both.check({ principal: p, action: "read", resourceType: "Observation", resource: observation("p1") })).toEqual(PERMIT);
    const rows = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const resources = [observation("p1"), observation("p2"), { ...observation("p1"), resourceType: "Condition" }];
    let parses = 0;
    const kept = await both.filter(p, "search", rows, (row) => {
      parses++;
      return resources[row.n - 1]!;
    });
    expect(kept).toEqual([rows[0]]);
    expect(parses).toBe(3);
    expect(both.auditNote?.()).toEqual({ basis: ["Consent/c1"], purposes: [] });
  });
});
