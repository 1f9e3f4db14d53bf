// Access policies' plain modules (features/access-policies/): rules checked and compiled (422
// issues at their place), what the rules decide and filter (types, read-only, criteria, patient and
// Group compartments, "*"), the search scopes they push into a query, fields hidden and kept, and
// the search parameters that would reveal a hidden field.
import { describe, expect, it } from "vitest";
import type { Resource } from "../../../src/features/fhir/port";
import { expressionReads, hideFields, keepFields } from "../../../src/features/access-policies/hidden-fields";
import { resourceAccessPolicy } from "../../../src/features/access-policies/policy";
import { type CompiledPolicy, type PolicyRule, hiddenSearchParam, judge, redacted, restored, searchScopeOf, shows } from "../../../src/features/access-policies/rules";
import { compilePolicy } from "../../../src/features/access-policies/validate";
import type { Principal } from "../../../src/platform/principal";

const compiled = (resources: PolicyRule[], name = "test policy"): CompiledPolicy => {
  const { policy, issues } = compilePolicy({ id: "ap1", name, resources });
  expect(issues).toEqual([]);
  return policy;
};
const issuesOf = (resources: PolicyRule[]) => compilePolicy({ id: "ap1", name: "p", resources }).issues;
const NO_GROUPS = new Map<string, ReadonlySet<string>>();

const VITALS = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "vital-signs" }] };
const LAB = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory" }] };
const obs = (id: string, patient: string, category = VITALS, extra: Record<string, unknown> = {}): Resource => ({
  resourceType: "Observation",
  id,
  status: "final",
  category: [category],
  code: { text: "hr" },
  subject: { reference: `Patient/${patient}` },
  ...extra,
});
const patient = (id: string, extra: Record<string, unknown> = {}): Resource => ({ resourceType: "Patient", id, ...extra });

describe("compiling an access policy's rules", () => {
  it("takes valid rules and refuses each bad part at its place, naming the problem", () => {
    expect(
      issuesOf([
        { resourceType: "Observation", criteria: "Observation?category=vital-signs", compartment: { patient: "Patient/p1" }, hiddenFields: ["Observation.note", "value", "code.text"] },
        { resourceType: "*", readonly: true, compartment: { group: "Group/g1" }, hiddenFields: ["meta.source", "Patient.telecom"] },
      ]),
    ).toEqual([]);
    const issues = issuesOf([
      { resourceType: "Observaton" },
      { resourceType: "Observation", criteria: "Patient?name=x" },
      { resourceType: "Observation", criteria: "Observation?colour=red" },
      { resourceType: "Observation", criteria: "Observation?value-quantity=5" },
      { resourceType: "Observation", criteria: "Observation?subject.name=x" },
      { resourceType: "Observation", criteria: "Observation?_count=5" },
      { resourceType: "Observation", criteria: "Observation?date=yesterday" },
      { resourceType: "*", criteria: "Observation?status=final" },
      { resourceType: "Practitioner", compartment: { patient: "Patient/p1" } },
      { resourceType: "Observation", compartment: { patient: "Group/g1" } },
      { resourceType: "Patient", hiddenFields: ["Patient.telefon", "Observation.note", "contact.telecom", "value"] },
    ]);
    const at = (path: string) => issues.filter((i) => i.path === path).map((i) => i.message);
    expect(at("resources[0].resource_type")[0]).toMatch(/Observaton is not a FHIR R4 resource type/);
    expect(at("resources[1].criteria")[0]).toMatch(/search of Observation, the rule's type/);
    expect(at("resources[2].criteria")[0]).toMatch(/Unknown search parameter colour for Observation/);
    expect(at("resources[3].criteria")[0]).toMatch(/cannot be evaluated on a resource: .*quantity parameter/);
    expect(at("resources[4].criteria")[0]).toMatch(/chained and _has parameters cannot be evaluated/);
    expect(at("resources[5].criteria")[0]).toMatch(/_count is a result parameter/);
    expect(at("resources[6].criteria")[0]).toMatch(/criteria "Observation\?date=yesterday": /);
    expect(at("resources[7].criteria")[0]).toMatch(/a rule for "\*" takes none/);
    expect(at("resources[8].compartment")[0]).toMatch(/Practitioner resources are in no patient's compartment/);
    expect(at("resources[9].compartment")[0]).toMatch(/patient must be a reference Patient\/<id>/);
    expect(at("resources[10].hidden_fields[0]")[0]).toMatch(/Patient has no element telefon/);
    expect(at("resources[10].hidden_fields[1]")[0]).toMatch(/a field of Observation, not of Patient/);
    expect(at("resources[10].hidden_fields[2]")[0]).toMatch(/contact repeats; a field path goes through single elements/);
    expect(at("resources[10].hidden_fields[3]")[0]).toMatch(/Patient has no element value/);
  });
});

describe("what the rules decide", () => {
  const policy = compiled([
    { resourceType: "Patient", readonly: true, compartment: { patient: "Patient/p1" } },
    { resourceType: "Observation", criteria: "Observation?category=vital-signs", compartment: { group: "Group/g1" } },
    { resourceType: "Observation", readonly: true, criteria: "Observation?subject=Patient/p9" },
  ]);
  const groups = new Map([["g1", new Set(["p1", "p2"])]]);

  it("refuses a type no rule names, writes through read-only rules and what no rule admits", () => {
    expect(judge(policy, { action: "read", resourceType: "Encounter" }, groups)).toEqual({ permit: false, reason: 'the access policy "test policy" grants no access to Encounter' });
    expect(judge(policy, { action: "search", resourceType: "Patient" }, groups)).toEqual({ permit: true });
    expect(judge(policy, { action: "update", resourceType: "Patient", resource: patient("p1") }, groups)).toEqual({ permit: false, reason: 'the access policy "test policy" grants Patient read-only' });
    expect(judge(policy, { action: "read", resourceType: "Patient", resource: patient("p1") }, groups).permit).toBe(true);
    expect(judge(policy, { action: "read", resourceType: "Patient", resource: patient("p2") }, groups)).toEqual({ permit: false, reason: 'Patient/p2 is outside what the access policy "test policy" grants' });
    // Criteria and the Group's compartment, both; or the read-only rule's criteria.
    expect(judge(policy, { action: "read", resourceType: "Observation", resource: obs("o1", "p2") }, groups).permit).toBe(true);
    expect(judge(policy, { action: "read", resourceType: "Observation", resource: obs("o2", "p2", LAB) }, groups).permit).toBe(false);
    expect(judge(policy, { action: "read", resourceType: "Observation", resource: obs("o3", "p3") }, groups).permit).toBe(false);
    expect(judge(policy, { action: "read", resourceType: "Observation", resource: obs("o4", "p9", LAB) }, groups).permit).toBe(true);
    expect(judge(policy, { action: "create", resourceType: "Observation", resource: obs("o5", "p1") }, groups).permit).toBe(true);
    expect(judge(policy, { action: "create", resourceType: "Observation", resource: obs("o6", "p9", LAB) }, groups).permit).toBe(false);
    expect(shows(policy, obs("o1", "p1"), groups)).toBe(true);
    expect(shows(policy, obs("o1", "p1"), NO_GROUPS)).toBe(false);
  });

  it("pushes each rule of the searched types into the query as a branch; none where a rule is open", () => {
    expect(searchScopeOf(policy, ["Observation"], groups)).toEqual([
      {
        anyOf: [
          { resourceType: "Observation", query: "category=vital-signs", patients: ["p1", "p2"] },
          { resourceType: "Observation", query: "subject=Patient/p9" },
        ],
      },
    ]);
    expect(searchScopeOf(policy, [], groups)).toEqual([{ anyOf: [{ resourceType: "Patient", patients: ["p1"] }, expect.anything(), expect.anything()] }]);
    const open = compiled([{ resourceType: "Observation" }, { resourceType: "*", compartment: { patient: "Patient/p1" } }]);
    expect(searchScopeOf(open, ["Observation"], NO_GROUPS)).toBeUndefined();
    expect(searchScopeOf(open, ["Encounter"], NO_GROUPS)).toEqual([{ anyOf: [{ resourceType: "Encounter", patients: ["p1"] }] }]);
    expect(searchScopeOf(compiled([{ resourceType: "*" }]), [], NO_GROUPS)).toBeUndefined();
  });
});

describe("hidden and read-only fields", () => {
  const policy = compiled([
    { resourceType: "Patient", hiddenFields: ["Patient.telecom", "birthDate"], readonlyFields: ["identifier"] },
    { resourceType: "Observation", hiddenFields: ["note", "value"] },
    { resourceType: "*", hiddenFields: ["meta.source"] },
  ]);
  const stored = patient("p1", {
    telecom: [{ system: "phone", value: "555" }],
    birthDate: "1970-01-01",
    _birthDate: { extension: [{ url: "x", valueString: "y" }] },
    identifier: [{ value: "MRN1" }],
    name: [{ family: "Doe" }],
    meta: { source: "hl7", versionId: "1" },
  });

  it("hides them from what is shown (a copy; the resource itself when nothing is hidden), choices and primitive extensions too", () => {
    const shown = redacted(policy, stored);
    expect(shown).toEqual(patient("p1", { identifier: [{ value: "MRN1" }], name: [{ family: "Doe" }], meta: { versionId: "1" } }));
    expect(stored.telecom).toBeDefined();
    const o = obs("o1", "p1", VITALS, { valueQuantity: { value: 60 }, _valueString: {}, note: [{ text: "secret" }] });
    expect(Object.keys(redacted(policy, o))).not.toEqual(expect.arrayContaining(["valueQuantity"]));
    expect(redacted(policy, o)).not.toHaveProperty("note");
    const plain = { resourceType: "Encounter", id: "e1" };
    expect(redacted(policy, plain)).toBe(plain);
  });

  it("keeps them as stored on an update, drops read-only ones on a create, and never wipes what the writer could not see", () => {
    const written = patient("p1", { identifier: [{ value: "CHANGED" }], name: [{ family: "Roe" }], telecom: [{ value: "666" }], meta: { versionId: "1" } });
    expect(restored(policy, written, stored)).toEqual({
      ...written,
      identifier: [{ value: "MRN1" }],
      telecom: [{ system: "phone", value: "555" }],
      birthDate: "1970-01-01",
      _birthDate: { extension: [{ url: "x", valueString: "y" }] },
      meta: { versionId: "1", source: "hl7" },
    });
    const created = restored(policy, written, undefined);
    expect(created).not.toHaveProperty("identifier");
    expect(created.telecom).toEqual([{ value: "666" }]);
  });

  it("keeps a nested field through single elements, recreating its parent when the writer dropped it", () => {
    const path = compiled([{ resourceType: "Observation", hiddenFields: ["code.text"] }]);
    const current = obs("o1", "p1", VITALS, { code: { text: "secret", coding: [{ code: "x" }] } });
    expect(hideFields(current, path.rules[0]!.hidden).code).toEqual({ coding: [{ code: "x" }] });
    expect(keepFields(obs("o1", "p1", VITALS, { code: { coding: [{ code: "y" }] } }), current, path.rules[0]!.hidden).code).toEqual({ coding: [{ code: "y" }], text: "secret" });
    const { code: _dropped, ...without } = obs("o1", "p1");
    expect(keepFields(without as Resource, current, path.rules[0]!.hidden).code).toEqual({ text: "secret" });
  });

  it("refuses searching, sorting or including by a parameter that reads a hidden field", () => {
    const field = policy.rules[0]!.hidden[0]!;
    expect(expressionReads("Patient.telecom.where(system='phone') | Person.telecom.where(system='phone')", "Patient", field)).toBe(true);
    expect(expressionReads("Patient.name", "Patient", field)).toBe(false);
    const value = policy.rules[1]!.hidden[1]!;
    expect(expressionReads("(Observation.value as Quantity) | (Observation.value as SampledData)", "Observation", value)).toBe(true);
    expect(hiddenSearchParam(policy, [{ resourceType: "Patient", code: "phone", expression: "Patient.telecom.where(system='phone')" }])).toMatch(/hides Patient.telecom, which searching, sorting or including by phone would reveal/);
    expect(hiddenSearchParam(policy, [{ resourceType: "Patient", code: "name", expression: "Patient.name" }])).toBeUndefined();
    expect(hiddenSearchParam(policy, [{ resourceType: "Encounter", code: "_source", expression: "Resource.meta.source" }])).toMatch(/hides Encounter.meta.source/);
  });
});

describe("the store policy", () => {
  const principal: Principal = { orgId: "o1", keyId: "k1", keyName: "k", role: "clinician", scopes: [], accessPolicyId: "ap1" };

  it("reads its policy and Groups once, and permits nothing when the policy does not exist", async () => {
    let reads = 0;
    let groupReads = 0;
    const policy = resourceAccessPolicy(principal, {
      policy: async () => {
        reads++;
        return compiled([{ resourceType: "Observation", compartment: { group: "Group/g1" } }]);
      },
      groupMembers: async (ids) => {
        groupReads++;
        return new Map(ids.map((id) => [id, new Set(["p1"])]));
      },
    });
    expect((await policy.check({ principal, action: "read", resourceType: "Observation", resource: obs("o1", "p1") })).permit).toBe(true);
    expect(await policy.filter(principal, "search", [obs("o1", "p1"), obs("o2", "p2")], (r) => r)).toHaveLength(1);
    expect([reads, groupReads]).toEqual([1, 1]);

    const gone = resourceAccessPolicy(principal, { policy: async () => undefined, groupMembers: async () => new Map() });
    expect(await gone.check({ principal, action: "read", resourceType: "Observation", resource: obs("o1", "p1") })).toEqual({ permit: false, reason: "the access policy ap1 assigned to this credential does not exist" });
    expect(await gone.filter(principal, "search", [obs("o1", "p1")], (r) => r)).toEqual([]);
    expect(await gone.searchScope!(principal, ["Observation"])).toEqual([{ anyOf: [] }]);
  });
});
