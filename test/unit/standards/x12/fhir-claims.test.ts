import { describe, expect, it } from "vitest";
import { X12Error } from "../../../../src/standards/x12/errors";
import { type Match, matchQuery, x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { plbAdjustments } from "../../../../src/standards/x12/fhir/payment-835";
import { segment } from "../../../../src/standards/x12/model";
import { readX12 } from "../../../../src/standards/x12/read";
import { all, coding, expectValid, follow, type Json, mapped, one, usd } from "./fhir-support";
import { fixture, fixtureNames } from "./support";

const NPI = "http://hl7.org/fhir/sid/us-npi";
const CPT = "http://www.ama-assn.org/go/cpt";
const ICD10 = "http://hl7.org/fhir/sid/icd-10-cm";

describe("every valid fixture maps to resources the R4 definitions accept", () => {
  it.each(fixtureNames().filter((n) => !n.includes("errors")))("%s", async (name) => {
    const b = await mapped(name);
    expect(b.type).toBe("transaction");
    expect(b.entry!.length).toBeGreaterThan(0);
    expectValid(b);
  });
});

describe("837P → Claim (professional) with Patient, Coverage, Organization, Practitioner, Encounter", () => {
  it("claim header", async () => {
    const b = await mapped("837P-subscriber.x12");
    const claim = one(b, "Claim");
    expect(claim.identifier).toEqual([{ system: "urn:x12:patient-control-number:1234567893", value: "PCN1001" }]);
    expect(claim.status).toBe("active");
    expect(claim.type).toEqual(coding("http://terminology.hl7.org/CodeSystem/claim-type", "professional"));
    expect(claim.use).toBe("claim");
    expect(claim.created).toBe("2026-01-15");
    expect(claim.priority).toEqual(coding("http://terminology.hl7.org/CodeSystem/processpriority", "normal"));
    expect(claim.total).toEqual(usd(125.5));
    expect(claim.billablePeriod).toEqual({ start: "2026-01-10", end: "2026-01-10" });
    expect(claim.diagnosis.map((d: Json) => [d.sequence, d.diagnosisCodeableConcept.coding[0].system, d.diagnosisCodeableConcept.coding[0].code, d.type[0].coding[0].code])).toEqual([
      [1, ICD10, "J06.9", "principal"],
      [2, ICD10, "R05.1", "other"],
      [3, ICD10, "R50.9", "other"],
    ]);
  });
  it("parties", async () => {
    const b = await mapped("837P-subscriber.x12");
    const claim = one(b, "Claim");
    const patient = follow(b, claim.patient);
    expect(patient).toMatchObject({ resourceType: "Patient", identifier: [{ system: "urn:x12:member-id:CHP0001", value: "CHP123456789" }], name: [{ family: "RIVERA", given: ["ELENA", "M"] }], birthDate: "1980-02-14", gender: "female" });
    expect(patient.address).toEqual([{ line: ["42 OAK AVENUE"], city: "SPRINGFIELD", state: "OR", postalCode: "97477" }]);
    const billing = follow(b, claim.provider);
    expect(billing).toMatchObject({ resourceType: "Organization", name: "MAPLE STREET FAMILY CLINIC" });
    expect(billing.identifier).toEqual([{ system: NPI, value: "1234567893" }, { system: "urn:oid:2.16.840.1.113883.4.4", value: "930000001" }]);
    expect(billing.address[0]).toEqual({ line: ["100 MAPLE STREET", "SUITE 2"], city: "SPRINGFIELD", state: "OR", postalCode: "974770001" });
    const payer = follow(b, claim.insurer);
    expect(payer).toMatchObject({ resourceType: "Organization", name: "CASCADE HEALTH PLAN", identifier: [{ system: "urn:x12:payer-id", value: "CHP0001" }] });
    const coverage = follow(b, claim.insurance[0].coverage);
    expect(claim.insurance[0]).toMatchObject({ sequence: 1, focal: true });
    expect(coverage).toMatchObject({ status: "active", subscriberId: "CHP123456789", relationship: coding("http://terminology.hl7.org/CodeSystem/subscriber-relationship", "self"), class: [{ value: "GRP7788" }], type: coding("https://codesystem.x12.org/005010/1032", "CI") });
    expect(follow(b, coverage.beneficiary)).toBe(patient);
    expect(follow(b, coverage.payor[0])).toBe(payer);
    const team = claim.careTeam[0];
    expect(team.role).toEqual(coding("http://terminology.hl7.org/CodeSystem/claimcareteamrole", "primary"));
    expect(team.qualification).toEqual(coding("http://nucc.org/provider-taxonomy", "207Q00000X"));
    expect(follow(b, team.provider)).toMatchObject({ resourceType: "Practitioner", identifier: [{ system: NPI, value: "1992753880" }], name: [{ family: "OKAFOR", given: ["SAMUEL"] }] });
  });
  it("service lines and the encounter", async () => {
    const b = await mapped("837P-subscriber.x12");
    const claim = one(b, "Claim");
    const [l1, l2] = claim.item;
    expect(l1).toMatchObject({
      sequence: 1,
      diagnosisSequence: [1, 2],
      productOrService: coding(CPT, "99213"),
      modifier: [coding("urn:oid:2.16.840.1.113883.6.285", "25")],
      servicedDate: "2026-01-10",
      locationCodeableConcept: coding("https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set", "11"),
      quantity: { value: 1, unit: "UN" },
      unitPrice: usd(100),
      net: usd(100),
    });
    expect(l2).toMatchObject({ sequence: 2, diagnosisSequence: [1], productOrService: coding(CPT, "87880"), net: usd(25.5) });
    const encounter = follow(b, l1.encounter[0]);
    expect(encounter).toMatchObject({ resourceType: "Encounter", status: "finished", class: { code: "AMB" }, period: { start: "2026-01-10", end: "2026-01-10" } });
    expect(follow(b, encounter.subject)).toBe(follow(b, claim.patient));
    expect(follow(b, encounter.serviceProvider)).toBe(follow(b, claim.provider));
  });
  it("a dependent patient (2000C) gets the subscriber's coverage with the relationship", async () => {
    const b = await mapped("837P-dependent.x12");
    const claim = one(b, "Claim");
    const patient = follow(b, claim.patient);
    expect(patient).toMatchObject({ name: [{ family: "NGUYEN", given: ["MAI"] }], birthDate: "2015-06-30", gender: "female" });
    expect(patient.identifier).toBeUndefined();
    const coverage = follow(b, claim.insurance[0].coverage);
    expect(coverage.relationship).toEqual(coding("http://terminology.hl7.org/CodeSystem/subscriber-relationship", "child"));
    expect(follow(b, coverage.subscriber)).toMatchObject({ name: [{ family: "NGUYEN", given: ["THANH"] }], identifier: [{ value: "CHP555000111" }] });
    expect(follow(b, coverage.beneficiary)).toBe(patient);
    expect(coverage.subscriberId).toBe("CHP555000111");
  });
});

describe("837I → Claim (institutional)", () => {
  it("type of bill, statement period, revenue lines, admission, attending, inpatient encounter", async () => {
    const b = await mapped("837I-inpatient.x12");
    const claim = one(b, "Claim");
    expect(claim.type.coding[0].code).toBe("institutional");
    expect(claim.subType).toEqual(coding("https://www.nubc.org/CodeSystem/TypeOfBill", "0111"));
    expect(claim.billablePeriod).toEqual({ start: "2026-01-10", end: "2026-01-13" });
    expect(claim.total).toEqual(usd(4250));
    expect(claim.diagnosis.map((d: Json) => [d.diagnosisCodeableConcept.coding[0].code, d.type[0].coding[0].code])).toEqual([
      ["I21.4", "principal"],
      ["R07.9", "admitting"],
      ["E11.9", "other"],
      ["I10", "other"],
    ]);
    expect(claim.item[0]).toMatchObject({ sequence: 1, revenue: coding("https://www.nubc.org/CodeSystem/RevenueCodes", "0120"), productOrService: coding("https://www.nubc.org/CodeSystem/RevenueCodes", "0120"), quantity: { value: 3, unit: "DA" }, net: usd(3000) });
    expect(claim.item[1]).toMatchObject({ revenue: coding("https://www.nubc.org/CodeSystem/RevenueCodes", "0450"), productOrService: coding(CPT, "99284"), servicedDate: "2026-01-10", net: usd(1250) });
    expect(claim.supportingInfo.map((s: Json) => s.category.text)).toEqual(["admission", "admission type", "admission source", "patient status"]);
    expect(claim.supportingInfo[0].timingDate).toBe("2026-01-10");
    expect(claim.supportingInfo[1].code.coding[0].code).toBe("1");
    expect(follow(b, claim.careTeam[0].provider)).toMatchObject({ resourceType: "Practitioner", identifier: [{ value: "1003000126" }] });
    expect(follow(b, claim.item[0].encounter[0]).class.code).toBe("IMP");
    expect(follow(b, one(b, "Claim").item[0].encounter[0]).period).toEqual({ start: "2026-01-10", end: "2026-01-13" });
  });
  it("reason for visit (APR), external cause (ABN), CL1's admission source and patient status, the billing taxonomy (PRV*BI)", async () => {
    const b = await mapped("837I-emergency.x12");
    const claim = one(b, "Claim");
    expect(claim.diagnosis.map((d: Json) => [d.diagnosisCodeableConcept.coding[0].code, d.type[0].coding[0].code])).toEqual([
      ["S52.501A", "principal"],
      ["R07.9", "patientreasonforvisit"],
      ["M79.631", "patientreasonforvisit"],
      ["W01.0XXA", "externalcauseofinjury"],
      ["I10", "other"],
    ]);
    expect(claim.supportingInfo.map((s: Json) => [s.category.coding[0].code, s.category.text, s.code?.coding[0].system, s.code?.coding[0].code ?? s.timingDate])).toEqual([
      ["info", "admission", undefined, "2026-01-18"],
      ["info", "admission type", "https://www.nubc.org/CodeSystem/PriorityTypeOfAdmitOrVisit", "1"],
      ["info", "admission source", "https://www.nubc.org/CodeSystem/PointOfOrigin", "7"],
      ["discharge", "patient status", "https://www.nubc.org/CodeSystem/PatDischargeStatus", "01"],
    ]);
    expect(claim.provider.extension).toEqual([{ url: "http://hl7.org/fhir/us/davinci-pct/StructureDefinition/providerTaxonomy", valueCodeableConcept: coding("http://nucc.org/provider-taxonomy", "282N00000X") }]);
    expect(follow(b, claim.patient).name).toEqual([{ family: "PATEL", given: ["RIYA"] }]);
    expectValid(b);
  });
  it("an outpatient bill (13x) is an ambulatory encounter", async () => {
    const b = await mapped("837I-outpatient.x12");
    expect(follow(b, one(b, "Claim").item[0].encounter[0]).class.code).toBe("AMB");
    expect(one(b, "Coverage").type.coding[0].code).toBe("MB");
  });
});

describe("835 → PaymentReconciliation + ExplanationOfBenefit per CLP", () => {
  it("the payment", async () => {
    const b = await mapped("835-payment.x12");
    const pr = one(b, "PaymentReconciliation");
    expect(pr).toMatchObject({ status: "active", outcome: "complete", created: "2026-02-01", paymentDate: "2026-02-03", paymentAmount: usd(111), paymentIdentifier: { value: "EFT0001" } });
    expect(pr.identifier).toEqual([{ system: "urn:x12:trn:1512345678", value: "EFT0001" }]);
    expect(follow(b, pr.paymentIssuer)).toMatchObject({ name: "CASCADE HEALTH PLAN", address: [{ line: ["500 INSURANCE WAY"], city: "PORTLAND" }] });
    expect(follow(b, pr.requestor)).toMatchObject({ name: "MAPLE STREET FAMILY CLINIC", identifier: [{ system: NPI, value: "1234567893" }, { system: "urn:oid:2.16.840.1.113883.4.4", value: "930000001" }] });
    expect(pr.detail.map((d: Json) => [d.type.coding[0].code, d.amount.value])).toEqual([
      ["payment", 85.5],
      ["payment", 0],
      ["adjustment", 20],
      ["adjustment", 5.5],
    ]);
    expect(pr.detail[2]).toMatchObject({ type: { text: "WO" }, identifier: { value: "OVERPAY01" }, date: "2026-12-31" });
    const eobs = all(b, "ExplanationOfBenefit");
    expect(eobs).toHaveLength(2);
    expect(pr.detail.slice(0, 2).map((d: Json) => follow(b, d.response))).toEqual(eobs);
  });
  it("one EOB per claim, with totals, claim-level and line-level CAS", async () => {
    const b = await mapped("835-payment.x12");
    const [paid, denied] = all(b, "ExplanationOfBenefit");
    expect(paid!.identifier).toEqual([
      { system: "urn:x12:payer-claim-control-number:1512345678", value: "CHPCLM0001" },
      { system: "urn:x12:patient-control-number:1234567893", value: "PCN1001" },
    ]);
    expect(paid).toMatchObject({ status: "active", use: "claim", outcome: "complete", disposition: "Processed as Primary", type: coding("http://terminology.hl7.org/CodeSystem/claim-type", "professional"), billablePeriod: { start: "2026-01-10", end: "2026-01-10" } });
    expect(paid!.total.map((t: Json) => [t.category.coding[0].code, t.amount.value])).toEqual([
      ["submitted", 125.5],
      ["benefit", 85.5],
    ]);
    expect(paid!.payment).toMatchObject({ date: "2026-02-03", amount: usd(85.5), identifier: { value: "EFT0001" } });
    expect(paid!.adjudication).toEqual([{ category: coding("https://codesystem.x12.org/005010/1033", "CO"), reason: coding("https://codesystem.x12.org/005010/1034", "45"), amount: usd(20) }]);
    const [s1, s2] = paid!.item;
    expect(s1).toMatchObject({ sequence: 1, productOrService: coding(CPT, "99213"), modifier: [{ coding: [{ code: "25" }] }], servicedDate: "2026-01-10", quantity: { value: 1 }, net: usd(100) });
    expect(s1.adjudication.map((a: Json) => [a.category.coding[0].code, a.reason?.coding[0].code, a.amount.value])).toEqual([
      ["submitted", undefined, 100],
      // AMT*B6 (allowed amount).
      ["eligible", undefined, 85],
      ["benefit", undefined, 70],
      ["CO", "45", 15],
      ["PR", "2", 15],
    ]);
    // One CAS with two triplets: reason 45 amount 5 quantity 1, reason 253 amount 5.
    expect(s2.adjudication.slice(2).map((a: Json) => [a.category.coding[0].code, a.reason.coding[0].code, a.amount.value, a.value])).toEqual([
      ["CO", "45", 5, 1],
      ["CO", "253", 5, undefined],
    ]);
    expect(denied).toMatchObject({ disposition: "Denied", total: [{ amount: usd(40) }, { amount: usd(0) }] });
    expect(follow(b, denied!.patient).name).toEqual([{ family: "NGUYEN", given: ["MAI"] }]);
    expect(follow(b, paid!.insurance[0].coverage)).toMatchObject({ subscriberId: "CHP123456789", type: { coding: [{ code: "12" }] } });
  });
  it("a dependent sharing the subscriber's member id is a Patient of their own; the Coverage links the subscriber", async () => {
    const b = await mapped("835-dependent.x12");
    expectValid(b);
    const [own, dependents] = all(b, "ExplanationOfBenefit");
    const subscriber = follow(b, own!.patient);
    const dependent = follow(b, dependents!.patient);
    expect(all(b, "Patient")).toHaveLength(2);
    expect(subscriber.name).toEqual([{ family: "RIVERA", given: ["ELENA", "M"] }]);
    expect(dependent.name).toEqual([{ family: "RIVERA", given: ["LUCAS"] }]);
    const coverage = follow(b, dependents!.insurance[0].coverage);
    expect(follow(b, coverage.beneficiary)).toBe(dependent);
    expect(follow(b, coverage.subscriber)).toBe(subscriber);
    expect(coverage).toMatchObject({ subscriberId: "CHP123456789", relationship: coding("http://terminology.hl7.org/CodeSystem/subscriber-relationship", "other") });
    const own_ = follow(b, own!.insurance[0].coverage);
    expect(own_).not.toBe(coverage);
    expect(own_.relationship.coding[0].code).toBe("self");
    // Keyed by payer + member id + name (+ birth date where the loop has one): the conditional creates tell the two apart.
    const ifNoneExist = (r: Json) => b.entry!.find((e) => e.resource === r)!.request!.ifNoneExist;
    // The subscriber by the member id on the Patient; the dependent (whose NM1*QC carries the subscriber's id) through the Coverage.
    const member = "urn%3Ax12%3Amember-id%3A1512345678|CHP123456789";
    expect(ifNoneExist(subscriber)).toBe(`identifier=${member}&family:exact=RIVERA&given:exact=ELENA`);
    expect(ifNoneExist(dependent)).toBe(`_has:Coverage:beneficiary:identifier=${member}&family:exact=RIVERA&given:exact=LUCAS`);
    expect(dependent.identifier).toBeUndefined();
    expect(ifNoneExist(coverage)).toBe("identifier=urn%3Ax12%3Amember-id%3A1512345678|CHP123456789&beneficiary:Patient.family:exact=RIVERA&beneficiary:Patient.given:exact=LUCAS");
    expect(dependents!.item[0].adjudication.find((a: Json) => a.category.coding[0].code === "eligible").amount).toEqual(usd(50));
  });
  it("PLB reads up to six reason/amount pairs", () => {
    const plb = segment("PLB", "1234567893", "20261231", "WO\u001fA", "-1", "L6", "2.5", "FB\u001fX", "3");
    expect(plbAdjustments(plb)).toEqual([
      { reason: "WO", reference: "A", amount: -1 },
      { reason: "L6", reference: undefined, amount: 2.5 },
      { reason: "FB", reference: "X", amount: 3 },
    ]);
  });
  it("a notification-only 835 (no payment) for an institutional claim", async () => {
    const b = await mapped("835-denial.x12");
    expect(one(b, "PaymentReconciliation")).toMatchObject({ paymentAmount: usd(0), disposition: "Notification only, no payment", paymentDate: "2026-02-10" });
    expect(one(b, "ExplanationOfBenefit")).toMatchObject({ disposition: "Denied", identifier: [{ value: "MEDCLM0002" }, { value: "INST2002" }] });
  });
  it("the EOB points at the stored Claim the resolver finds by patient control number", async () => {
    const asked: string[] = [];
    const resolver = {
      resolve: async (type: string, m: Match) => {
        asked.push(`${type} ${matchQuery(m)}`);
        return type === "Claim" && m.identifier?.value === "PCN1001" ? "Claim/c1" : undefined;
      },
    };
    const b = await mapped("835-payment.x12", { resolver });
    expect(all(b, "ExplanationOfBenefit")[0]!.claim).toEqual({ reference: "Claim/c1" });
    expect(asked).toContain("Claim identifier=urn%3Ax12%3Apatient-control-number%3A1234567893|PCN1001");
  });
});

describe("store references and idempotency", () => {
  it("a party the resolver knows is referenced, not created", async () => {
    const resolver = { resolve: async (type: string, m: Match) => (type === "Organization" && m.identifier?.value === "CHP0001" ? "Organization/payer-1" : type === "Patient" && m.identifier?.value === "CHP123456789" ? "Patient/p-9" : undefined) };
    const b = await mapped("837P-subscriber.x12", { resolver });
    const claim = one(b, "Claim");
    expect(claim.insurer).toEqual({ reference: "Organization/payer-1", display: "CASCADE HEALTH PLAN" });
    expect(claim.patient).toEqual({ reference: "Patient/p-9", display: "ELENA RIVERA" });
    expect(all(b, "Organization").map((o) => o.name)).toEqual(["MAPLE STREET FAMILY CLINIC"]);
    expect(all(b, "Patient")).toEqual([]);
    expectValid(b);
  });
  it("entries have deterministic fullUrls and conditional creates on their identifiers", async () => {
    const a = await mapped("837P-subscriber.x12");
    const b = await mapped("837P-subscriber.x12");
    expect(a.entry!.map((e) => e.fullUrl)).toEqual(b.entry!.map((e) => e.fullUrl));
    const claimEntry = a.entry!.find((e) => e.resource!.resourceType === "Claim")!;
    expect(claimEntry.request).toEqual({ method: "POST", url: "Claim", ifNoneExist: "identifier=urn%3Ax12%3Apatient-control-number%3A1234567893|PCN1001" });
  });
  it("a set missing a loop the mapping needs is a typed error naming the loop", async () => {
    const read = readX12(fixture("837P-errors.x12"));
    await expect(x12ToFhir(read)).rejects.toThrow(X12Error);
    await expect(x12ToFhir(read)).rejects.toMatchObject({ code: "MISSING_SEGMENT", loop: "2010BB" });
  });
});
