import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../../src/features/fhir/port";
import { envelope, writeX12 } from "../../../../src/standards/x12/build";
import { type Match, x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { bundleLookup } from "../../../../src/standards/x12/fhir/from-fhir";
import { claimTo837 } from "../../../../src/standards/x12/fhir/to-837";
import { eligibilityTo270, preauthTo278, statusTaskTo276 } from "../../../../src/standards/x12/fhir/to-requests";
import { readX12 } from "../../../../src/standards/x12/read";
import { all, coding, type Json, mapped, one, follow, usd } from "./fhir-support";
import { brief, fixture, x12Error } from "./support";

const PAS = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition";
const X12 = (n: number) => `https://codesystem.x12.org/005010/${n}`;
const knows = (type: string, value: string, ref: string) => ({ resolve: async (t: string, m: Match) => (t === type && m.identifier?.value === value ? ref : undefined) });

describe("270 → CoverageEligibilityRequest", () => {
  it("subscriber inquiry", async () => {
    const b = await mapped("270-subscriber.x12");
    const req = one(b, "CoverageEligibilityRequest");
    expect(req).toMatchObject({ status: "active", purpose: ["benefits"], created: "2026-01-05", servicedDate: "2026-01-05", identifier: [{ system: "urn:x12:trn:1234567893", value: "ELIGTRACE401" }] });
    expect(req.item).toEqual([{ category: coding(X12(1365), "30") }, { category: coding(X12(1365), "98") }]);
    expect(follow(b, req.insurer)).toMatchObject({ name: "CASCADE HEALTH PLAN", identifier: [{ value: "CHP0001" }] });
    expect(follow(b, req.provider)).toMatchObject({ resourceType: "Organization", identifier: [{ value: "1234567893" }] });
    expect(follow(b, req.patient)).toMatchObject({ birthDate: "1980-02-14", identifier: [{ value: "CHP123456789" }] });
    expect(follow(b, req.insurance[0].coverage)).toMatchObject({ subscriberId: "CHP123456789" });
  });
  it("dependent inquiry: the patient is the dependent, the coverage the subscriber's", async () => {
    const b = await mapped("270-dependent.x12");
    const req = one(b, "CoverageEligibilityRequest");
    expect(follow(b, req.patient).name).toEqual([{ family: "NGUYEN", given: ["MAI"] }]);
    const cov = follow(b, req.insurance[0].coverage);
    expect(follow(b, cov.subscriber).name).toEqual([{ family: "NGUYEN", given: ["THANH"] }]);
    expect(req.item).toEqual([{ category: coding(X12(1365), "1") }]);
  });
});

describe("271 → CoverageEligibilityResponse", () => {
  it("active coverage with benefits, linked to the request by its trace number", async () => {
    const b = await mapped("271-active.x12", { resolver: knows("CoverageEligibilityRequest", "ELIGTRACE401", "CoverageEligibilityRequest/r1") });
    const res = one(b, "CoverageEligibilityResponse");
    expect(res).toMatchObject({ status: "active", outcome: "complete", purpose: ["benefits"], request: { reference: "CoverageEligibilityRequest/r1" } });
    const ins = res.insurance[0];
    expect(ins.inforce).toBe(true);
    // DTP*346 (plan begin) alone: the plan runs from that day on (the benefit's DTP*292 gives way to the plan's term).
    expect(ins.benefitPeriod).toEqual({ start: "2025-01-01" });
    expect(ins.item[0]).toEqual({ category: coding(X12(1365), "30"), name: "GOLD PPO 500", unit: coding("http://terminology.hl7.org/CodeSystem/benefit-unit", "individual") });
    expect(ins.item[1]).toMatchObject({ network: coding("http://terminology.hl7.org/CodeSystem/benefit-network", "in"), benefit: [{ type: coding("http://terminology.hl7.org/CodeSystem/benefit-type", "deductible"), allowedMoney: usd(500) }] });
    expect(ins.item[2]).toMatchObject({ category: coding(X12(1365), "98"), description: "COPAY APPLIES PER VISIT", benefit: [{ type: { coding: [{ code: "copay" }] }, allowedMoney: usd(25) }] });
  });
  it.each([
    ["plan begin and end (346, 347)", "DTP*346*D8*20250101~\nDTP*347*D8*20251231~", 1, { start: "2025-01-01", end: "2025-12-31" }],
    ["plan begin as a range (346 RD8)", "DTP*346*RD8*20250101-20251231~", 0, { start: "2025-01-01", end: "2025-12-31" }],
    ["plan as a range (291 RD8)", "DTP*291*RD8*20250101-20251231~", 0, { start: "2025-01-01", end: "2025-12-31" }],
    ["plan end alone (347)", "DTP*347*D8*20251231~", 0, { end: "2025-12-31" }],
  ])("271 benefitPeriod from %s", async (_, dtps, added, period) => {
    const text = fixture("271-active.x12").replace("DTP*346*D8*20250101~", dtps).replace("SE*23*", `SE*${23 + added}*`);
    const read = readX12(text);
    expect(brief(read.issues)).toEqual([]);
    const [set] = await x12ToFhir(read);
    expect(one(set!.bundle, "CoverageEligibilityResponse").insurance[0].benefitPeriod).toEqual(period);
  });
  it("a rejection (AAA) is an error outcome with the reject reason", async () => {
    const b = await mapped("271-rejected.x12");
    const res = one(b, "CoverageEligibilityResponse");
    expect(res.outcome).toBe("error");
    expect(res.error).toEqual([{ code: coding(X12(901), "75") }]);
    expect(res.insurance).toBeUndefined();
    expect(res.request).toEqual({ identifier: { system: "urn:x12:trn:1234567893", value: "ELIGTRACE402" } });
  });
});

describe("276 ↔ Task, 277/277CA → ClaimResponse", () => {
  it("276: a Task asking the payer for the claim's status", async () => {
    const b = await mapped("276-claim.x12", { resolver: knows("Claim", "PCN1001", "Claim/c1") });
    const task = one(b, "Task");
    expect(task).toMatchObject({ status: "requested", intent: "order", code: coding("urn:x12:task-code", "claim-status"), focus: { reference: "Claim/c1" }, authoredOn: "2026-02-15", identifier: [{ value: "STATTRACE601" }] });
    expect(follow(b, task.owner).name).toBe("CASCADE HEALTH PLAN");
    expect(follow(b, task.requester).identifier[0].value).toBe("1234567893");
    expect(follow(b, task.for)).toMatchObject({ birthDate: "1980-02-14", identifier: [{ value: "CHP123456789" }] });
    const inputs = Object.fromEntries(task.input.map((i: Json) => [i.type.text, i]));
    expect(inputs["patient-control-number"].valueIdentifier.value).toBe("PCN1001");
    expect(inputs["payer-claim-control-number"].valueIdentifier.value).toBe("CHPCLM0001");
    expect(inputs["billed-amount"].valueMoney).toEqual(usd(125.5));
    expect(inputs["service-period"].valuePeriod).toEqual({ start: "2026-01-10", end: "2026-01-10" });
  });
  it("276 for a dependent, with a service line; the focus is the claim by identifier when not stored", async () => {
    const task = one(await mapped("276-dependent.x12"), "Task");
    expect(task.focus).toEqual({ identifier: { system: "urn:x12:patient-control-number:1234567893", value: "PCN2002" }, type: "Claim" });
    expect(task.input.find((i: Json) => i.type.text === "service-line").valueCodeableConcept).toEqual(coding("http://www.ama-assn.org/go/cpt", "99212"));
  });
  it("277: finalized and paid", async () => {
    const b = await mapped("277-status.x12");
    const cr = one(b, "ClaimResponse");
    expect(cr).toMatchObject({ status: "active", use: "claim", outcome: "complete", disposition: "Claim status F1:65", identifier: [{ value: "CHPCLM0001" }, { value: "STATTRACE601" }] });
    expect(cr.total.map((t: Json) => [t.category.coding[0].code, t.amount.value])).toEqual([
      ["submitted", 125.5],
      ["benefit", 85.5],
    ]);
    expect(cr.payment).toMatchObject({ date: "2026-02-03", amount: usd(85.5), identifier: { value: "EFT0001" } });
    expect(cr.item).toEqual([{ itemSequence: 1, adjudication: [{ category: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/adjudication", code: "submitted" }] }, amount: usd(100) }, { category: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/adjudication", code: "benefit" }] }, amount: usd(70) }], noteNumber: [2] }]);
    expect(cr.processNote.map((n: Json) => n.text)).toEqual(["Claim status F1:65 as of 2026-02-01", "Line 1 status F1:65"]);
    expect(cr.error).toBeUndefined();
  });
  it("277: pending is queued", async () => {
    expect(one(await mapped("277-pending.x12"), "ClaimResponse").outcome).toBe("queued");
  });
  it("277CA: accepted is queued; rejected is an error with category and status codes", async () => {
    expect(one(await mapped("277CA-accepted.x12"), "ClaimResponse")).toMatchObject({ outcome: "queued", disposition: "Claim status A2:20:PR", identifier: [{ value: "CHPCLM0001" }, { value: "PCN1001" }] });
    const rejected = one(await mapped("277CA-rejected.x12"), "ClaimResponse");
    expect(rejected.outcome).toBe("error");
    expect(rejected.error).toEqual([{ code: { coding: [{ system: X12(507), code: "A7" }, { system: X12(508), code: "21" }] } }]);
  });
});

describe("278 ↔ Claim (preauthorization) / ClaimResponse", () => {
  it("request: a preauthorization Claim with the service, diagnoses and provider", async () => {
    const b = await mapped("278-request.x12");
    const claim = one(b, "Claim");
    expect(claim).toMatchObject({ use: "preauthorization", status: "active", type: { coding: [{ code: "professional" }] }, identifier: [{ system: "urn:x12:trn:1234567893", value: "UMTRACE901" }] });
    expect(claim.diagnosis.map((d: Json) => d.diagnosisCodeableConcept.coding[0].code)).toEqual(["M25.51", "M25.561"]);
    expect(claim.item).toEqual([
      {
        extension: [{ url: "http://hl7.org/fhir/us/davinci-pas/StructureDefinition/extension-itemTraceNumber", valueIdentifier: { system: "urn:x12:trn:1234567893", value: "UMLINE9011" } }],
        sequence: 1,
        category: coding(X12(1365), "2"),
        productOrService: coding("http://www.ama-assn.org/go/cpt", "73721"),
        quantity: { value: 1 },
        net: usd(450),
        servicedPeriod: { start: "2026-03-15", end: "2026-03-15" },
        locationCodeableConcept: coding("https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set", "11"),
      },
    ]);
    expect(follow(b, claim.insurer).name).toBe("CASCADE HEALTH PLAN");
    expect(follow(b, claim.provider)).toMatchObject({ resourceType: "Practitioner", identifier: [{ value: "1992753880" }] });
    expect(follow(b, claim.careTeam[0].provider)).toBe(follow(b, claim.provider));
  });
  it("request for a dependent's admission: institutional, patient is the dependent", async () => {
    const b = await mapped("278-dependent-request.x12");
    const claim = one(b, "Claim");
    expect(claim.type.coding[0].code).toBe("institutional");
    expect(follow(b, claim.patient).name).toEqual([{ family: "NGUYEN", given: ["MAI"] }]);
  });
  it("response: certified, with the authorization number and period", async () => {
    const b = await mapped("278-response.x12", { resolver: knows("Claim", "UMTRACE901", "Claim/pa1") });
    const cr = one(b, "ClaimResponse");
    expect(cr).toMatchObject({ use: "preauthorization", outcome: "complete", disposition: "Certified in total", preAuthRef: "AUTH778899", preAuthPeriod: { start: "2026-03-15", end: "2026-04-15" }, request: { reference: "Claim/pa1" } });
    const action = { coding: [{ system: X12(306), code: "A1" }], text: "Certified in total" };
    const review = (number: string) => [{ url: `${PAS}/extension-reviewAction`, extension: [{ url: `${PAS}/extension-reviewActionCode`, valueCodeableConcept: action }, { url: "number", valueString: number }] }];
    expect(cr.adjudication).toEqual([{ extension: review("AUTH778899"), category: action }]);
    // The service level's own review number (2000F HCR02) and trace number (2000F TRN).
    expect(cr.item).toEqual([{ extension: [{ url: `${PAS}/extension-itemTraceNumber`, valueIdentifier: { system: "urn:x12:trn:1234567893", value: "UMLINE9011" } }], itemSequence: 1, adjudication: [{ extension: review("AUTH778899A"), category: action }] }]);
  });
  it("request: the service level (2000F) without UM is valid (situational, X12 RFI 1061) and maps", async () => {
    const text = fixture("278-request.x12").replace("UMLINE9011*1234567893~\nUM*HS*I*2~", "UMLINE9011*1234567893~").replace("SE*20*0001", "SE*19*0001");
    expect(text).not.toContain("UM*HS*I*2~\nSV1");
    const read = readX12(text);
    expect(brief(read.issues)).toEqual([]);
    const [set] = await x12ToFhir(read);
    expect(one(set!.bundle, "Claim").item[0]).toMatchObject({ sequence: 1, category: coding(X12(1365), "2"), productOrService: coding("http://www.ama-assn.org/go/cpt", "73721") });
  });
  it("response: not certified", async () => {
    const cr = one(await mapped("278-denied-response.x12"), "ClaimResponse");
    expect(cr).toMatchObject({ outcome: "complete", disposition: "Not Certified", adjudication: [{ category: { coding: [{ code: "A3" }] } }] });
    expect(cr.preAuthRef).toBeUndefined();
  });
});

/** Maps a fixture, writes the chosen resource back to X12, reads that and maps it again. */
async function roundTrip(name: string, type: string, write: (r: Resource, lookup: ReturnType<typeof bundleLookup>) => ReturnType<typeof eligibilityTo270>) {
  const b = await mapped(name);
  const resource = one(b, type) as Resource;
  const set = write(resource, bundleLookup(b));
  const text = writeX12({ interchanges: [envelope([set], { sender: "SENDER", receiver: "RECEIVER", control: 9, at: new Date("2026-03-01T10:00:00Z") })] });
  const read = readX12(text);
  expect(brief(read.issues)).toEqual([]);
  const [again] = await x12ToFhir(read);
  return { before: b, after: again!.bundle as Bundle, text };
}

const strip = (b: Bundle, type: string) => {
  const r = { ...one(b, type) };
  return JSON.parse(JSON.stringify(r).replace(/urn:uuid:[0-9a-f-]+/g, "ref"));
};

describe("FHIR → X12: what is written reads back clean and maps to the same resources", () => {
  const env = { submitter: { name: "NORTHWIND BILLING SERVICES", id: "NWB001", contactName: "DANA ROSS", phone: "5555550100" }, receiver: { name: "CASCADE HEALTH PLAN", id: "CHP0001" } };
  it.each(["837P-subscriber.x12", "837P-dependent.x12", "837I-inpatient.x12", "837I-outpatient.x12", "837I-emergency.x12"])("Claim → 837: %s", async (name) => {
    const { before, after } = await roundTrip(name, "Claim", (r, l) => claimTo837(r, l, env));
    const a = strip(before, "Claim");
    const z = strip(after, "Claim");
    for (const k of ["identifier", "type", "subType", "use", "total", "diagnosis", "item", "billablePeriod", "priority", "supportingInfo", "provider", "careTeam"]) expect(z[k], k).toEqual(a[k]);
    expect(strip(after, "Coverage")).toEqual(strip(before, "Coverage"));
    expect(all(after, "Patient").map((p) => p.name)).toEqual(all(before, "Patient").map((p) => p.name));
  });
  it.each(["270-subscriber.x12", "270-dependent.x12"])("CoverageEligibilityRequest → 270: %s", async (name) => {
    const { before, after } = await roundTrip(name, "CoverageEligibilityRequest", eligibilityTo270);
    const a = strip(before, "CoverageEligibilityRequest");
    const z = strip(after, "CoverageEligibilityRequest");
    for (const k of ["purpose", "servicedDate", "item", "created"]) expect(z[k], k).toEqual(a[k]);
    // TRN02 and TRN03 (the originating company, named in the system) come back as they were.
    expect(z.identifier).toEqual(a.identifier);
  });
  it.each(["276-claim.x12", "276-dependent.x12"])("Task → 276: %s", async (name) => {
    const { before, after } = await roundTrip(name, "Task", statusTaskTo276);
    const a = strip(before, "Task");
    const z = strip(after, "Task");
    for (const k of ["status", "intent", "code", "authoredOn"]) expect(z[k], k).toEqual(a[k]);
    // The trace system is the receiver's id (2100B), which the Task does not carry: the value stays.
    expect(z.identifier[0].value).toBe(a.identifier[0].value);
    const inputs = (t: Json) => t.input.filter((i: Json) => i.type.text !== "service-line");
    expect(inputs(z)).toEqual(inputs(a));
  });
  it.each(["278-request.x12", "278-dependent-request.x12"])("Claim (preauthorization) → 278: %s", async (name) => {
    const { before, after } = await roundTrip(name, "Claim", preauthTo278);
    const a = strip(before, "Claim");
    const z = strip(after, "Claim");
    for (const k of ["use", "type", "diagnosis", "item", "priority", "identifier"]) expect(z[k], k).toEqual(a[k]);
  });
  it("a value the set cannot do without is a typed error naming the FHIR element", async () => {
    const b = await mapped("837P-subscriber.x12");
    const claim = one(b, "Claim");
    const noNpi = { ...b, entry: b.entry!.map((e) => (e.fullUrl === claim.provider.reference ? { ...e, resource: { ...e.resource!, identifier: [] } } : e)) };
    const e = x12Error(() => claimTo837(claim as Resource, bundleLookup(noNpi), env));
    expect(e.code).toBe("BAD_BUILD_INPUT");
    expect(e.message).toContain("Claim.provider identifier (NPI)");
    const dangling = x12Error(() => claimTo837({ ...claim, insurer: { reference: "Organization/none" } } as unknown as Resource, bundleLookup(b), env));
    expect(dangling.message).toContain("Claim.insurer");
  });
});
