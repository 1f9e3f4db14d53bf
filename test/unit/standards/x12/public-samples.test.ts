// LinuxForHealth's public X12 samples (Apache-2.0, test/fixtures/x12/linuxforhealth/): each is read,
// validated (the exact findings for the samples with defects, README of the fixtures), answered
// with a 999, and the sets we map are mapped to FHIR with their shapes checked.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ack999Body } from "../../../../src/standards/x12/ack";
import { x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { el } from "../../../../src/standards/x12/model";
import { readX12 } from "../../../../src/standards/x12/read";
import type { Resource } from "../../../../src/features/fhir/port";
import { validateResource } from "../../../../src/features/fhir/validate";
import { all, coding, follow, type Json, one, usd } from "./fhir-support";
import { brief } from "./support";

const DIR = path.resolve(import.meta.dirname, "../../../fixtures/x12/linuxforhealth");
const sample = (name: string) => fs.readFileSync(path.join(DIR, name), "utf8");
const read = (name: string) => readX12(sample(name));
const bundles = async (name: string) => (await x12ToFhir(read(name))).map((s) => s.bundle);

const X222 = [
  ["BAD_CODE", "GS", 8, undefined, undefined],
  ["BAD_CODE", "ST", 3, "HEADER", 1],
];
const X223 = [
  ["BAD_CODE", "GS", 8, undefined, undefined],
  ["BAD_CODE", "ST", 3, "HEADER", 1],
];

// Every sample with what our validator finds in it: [] is clean. Why each finding is right: fixtures README.
const FINDINGS: Record<string, unknown[][]> = {
  "270_005010X279A1/subscriber-health-benefit-check.270": [],
  "270_005010X279A1/dependent-health-benefit-check.270": [],
  "271_005010X279A1/subscriber-health-benefit-check.271": [],
  "271_005010X279A1/dependent-health-benefit-check.271": [],
  "271_005010X279A1/subscriber-health-benefit-check-error.271": [["SE_CONTROL_MISMATCH", "SE", 2, "SE", 8]],
  "276_005010X212/claim-level-status.276": [],
  "276_005010X212/provider-level-status.276": [],
  "277_005010X212/claim-level-status.277": [],
  "277_005010X212/information-receiver-level-status.277": [],
  "834_005010X220A1/add-dependent.834": [["UNSUPPORTED_SET", "ST", 1, "HEADER", 1]],
  "835_005010X221A1/managed-care.835": [["BAD_DATE", "BPR", 16, "HEADER", 2]],
  "835_005010X221A1/medicare-part-a.835": [],
  "835_005010X221A1/secondary-payment.835": [
    ["MISSING_ELEMENT", "BPR", 16, "HEADER", 2],
    ["BAD_CODE", "SVC", 1, "2110", 27],
    ["BAD_CODE", "SVC", 1, "2110", 32],
  ],
  "837_004010X098A1/patient-is-subscriber.837": [["UNSUPPORTED_SET", "ST", 1, "HEADER", 1]],
  "837_005010X222A2/demo.example1.837": X222,
  "837_005010X222A2/demo.example6.837": [
    ...X222,
    ["UNEXPECTED_SEGMENT", "HI", undefined, "2300", 24],
    ["MISSING_SEGMENT", "HI", undefined, "2300", 25],
    ["BAD_CODE", "SV1", 1, "2400", 26],
  ],
  "837_005010X222A2/demo.cob.example3.A.837": [...X222, ["MISSING_SEGMENT", "NM1", undefined, "2320", 42]],
  "837_005010X223A3/institutional-claim.837i": [...X223, ["ELEMENT_NOT_USED", "CLM", 6, "2300", 20]],
  "837_005010X223A3/two-claims-single-provider.837i": [...X223, ["ELEMENT_NOT_USED", "CLM", 6, "2300", 19], ["ELEMENT_NOT_USED", "CLM", 6, "2300", 39]],
};

const sorted = (rows: unknown[][]) => [...rows].map((r) => JSON.stringify(r)).sort();

describe("LinuxForHealth samples: read and validated", () => {
  it("the fixture folder holds exactly the samples listed here", () => {
    const files = fs.readdirSync(DIR, { recursive: true, encoding: "utf8" }).filter((f) => f.includes("_005010") || f.includes("_004010")).filter((f) => fs.statSync(path.join(DIR, f)).isFile());
    expect(files.sort()).toEqual(Object.keys(FINDINGS).sort());
  });

  it.each(Object.entries(FINDINGS))("%s", (name, findings) => {
    const r = read(name);
    expect(r.interchanges).toHaveLength(1);
    expect(r.transactions.length).toBeGreaterThan(0);
    expect(sorted(brief(r.issues))).toEqual(sorted(findings));
    // The 999 accepts a clean group and rejects one with findings (AK9 A / R or P).
    const ak9 = ack999Body(r.interchanges[0]!.groups[0]!).find((s) => s.id === "AK9")!;
    expect(el(ak9, 1)).toMatch(findings.length ? /^[RP]$/ : /^A$/);
  });

  it("the defects are what the samples hold: ':' is ISA16 but the composites use '>', BPR's date is one element early", () => {
    const text = sample("835_005010X221A1/secondary-payment.835");
    expect(text.slice(104, 105)).toBe(":");
    expect(text).toContain("SVC*HC>12345>26*");
    expect(text).toContain("BPR*I*1222.00*C*CHK***********20050412~"); // BPR15, where BPR16 is the check date
    const message = read("835_005010X221A1/secondary-payment.835").issues.map((e) => e.message);
    expect(message).toContain("BPR16 is required");
  });

  it("a day that does not exist is BAD_DATE, answered with IK403 8 (managed-care.835: BPR16 20002316)", async () => {
    const r = read("835_005010X221A1/managed-care.835");
    expect(r.issues.map((e) => e.message)).toEqual(["BPR16 '20002316' is not a CCYYMMDD date"]);
    const ik4 = ack999Body(r.interchanges[0]!.groups[0]!).find((s) => s.id === "IK4")!;
    expect([el(ik4, 1), el(ik4, 3)]).toEqual(["16", "8"]);
    // Mapped without the date (the payment date falls back to the set's date), never as an invalid FHIR date.
    const [b] = await bundles("835_005010X221A1/managed-care.835");
    expect(one(b!, "PaymentReconciliation").paymentDate).toBe("2002-03-14");
  });

  it("a service composite written with the wrong separator keeps its value as text", async () => {
    const [b] = await bundles("835_005010X221A1/secondary-payment.835");
    const items = all(b!, "ExplanationOfBenefit").flatMap((e: Json) => e.item ?? []);
    expect(items.map((i: Json) => i.productOrService)).toContainEqual({ text: "HC>12345>26" });
  });
});

describe("LinuxForHealth samples: mapped to FHIR", () => {
  it("every set we map gives R4-valid resources", async () => {
    for (const name of Object.keys(FINDINGS).filter((n) => !/834|004010/.test(n))) {
      const sets = await x12ToFhir(read(name));
      expect(sets.length, name).toBeGreaterThan(0);
      for (const s of sets) {
        for (const e of s.bundle.entry ?? []) expect(validateResource(e.resource as Resource), `${name} ${e.resource?.resourceType}`).toEqual([]);
      }
    }
  });

  it("270 → CoverageEligibilityRequest", async () => {
    const [b] = await bundles("270_005010X279A1/subscriber-health-benefit-check.270");
    const req = one(b!, "CoverageEligibilityRequest");
    expect(req).toMatchObject({ status: "active", purpose: ["benefits"], servicedDate: "2006-05-01", created: "2006-05-01", identifier: [{ system: "urn:x12:trn:9877281234", value: "93175-012547" }] });
    expect(req.item).toEqual([{ category: coding("https://codesystem.x12.org/005010/1365", "30") }]);
    expect(follow(b!, req.patient)).toMatchObject({ resourceType: "Patient", name: [{ family: "SMITH", given: ["ROBERT"] }], birthDate: "1943-05-19", identifier: [{ value: "11122333301" }] });
    expect(follow(b!, req.insurer)).toMatchObject({ resourceType: "Organization", name: "ABC COMPANY", identifier: [{ system: "urn:x12:payer-id", value: "842610001" }] });
    expect(follow(b!, req.provider)).toMatchObject({ resourceType: "Organization", name: "BONE AND JOINT CLINIC" });
    expect(follow(b!, req.insurance[0].coverage)).toMatchObject({ resourceType: "Coverage", subscriberId: "11122333301" });
  });

  it("271 → CoverageEligibilityResponse with one item per EB03 service type", async () => {
    const [b] = await bundles("271_005010X279A1/subscriber-health-benefit-check.271");
    const res = one(b!, "CoverageEligibilityResponse");
    expect(res).toMatchObject({ outcome: "complete", request: { identifier: { system: "urn:x12:trn:9877281234", value: "93175-012547" } }, insurance: [{ inforce: true }] });
    const items: Json[] = res.insurance[0].item;
    const categories = items.map((i) => i.category?.coding[0].code);
    // EB*1**1^33^35^47^86^88^98^AL^MH^UC: ten service types, each its own item.
    for (const code of ["1", "33", "35", "47", "86", "88", "98", "AL", "MH", "UC"]) expect(categories).toContain(code);
    expect(categories.every((c: string | undefined) => c === undefined || /^[0-9A-Z]{1,2}$/.test(c))).toBe(true);
    const copays = items.filter((i) => i.benefit?.[0].type.coding[0].code === "copay" && i.network?.coding[0].code === "in");
    expect(copays.length).toBeGreaterThan(0);
    expect(copays[0].benefit[0].allowedMoney).toEqual(usd(10));
  });

  it("276 → Task per claim asked about; 277 → ClaimResponse per claim reported on", async () => {
    const [q] = await bundles("276_005010X212/claim-level-status.276");
    const tasks = all(q!, "Task");
    expect(tasks).toHaveLength(3);
    expect(tasks[0]).toMatchObject({ status: "requested", intent: "order", focus: { type: "Claim", identifier: { system: "urn:x12:patient-control-number:1666666661", value: "SM123456" } }, authoredOn: "2005-09-15" });
    expect(tasks[0].input).toContainEqual({ type: { text: "billed-amount" }, valueMoney: usd(8513.88) });
    expect(follow(q!, tasks[0].owner)).toMatchObject({ resourceType: "Organization", name: "ABC INSURANCE" });
    const [a] = await bundles("277_005010X212/claim-level-status.277");
    const responses = all(a!, "ClaimResponse");
    expect(responses).toHaveLength(3);
    expect(responses[0]).toMatchObject({ outcome: "queued", disposition: "Claim status P3:317", request: { identifier: { value: "SM123456" } }, total: [{ amount: usd(8513.88) }] });
    expect(responses[0].identifier[0]).toEqual({ system: "urn:x12:payer-claim-control-number:12345", value: "05347006051" });
    // A status at the information receiver level (2200B) names no claim: nothing to map.
    const [receiver] = await bundles("277_005010X212/information-receiver-level-status.277");
    expect(receiver!.entry ?? []).toEqual([]);
  });

  it("835 → ExplanationOfBenefit per claim and one PaymentReconciliation", async () => {
    const [b] = await bundles("835_005010X221A1/managed-care.835");
    const eobs = all(b!, "ExplanationOfBenefit");
    expect(eobs).toHaveLength(2);
    expect(eobs[0]).toMatchObject({ outcome: "complete", disposition: "Processed as Primary", created: "2002-03-14" });
    expect(eobs[0].identifier).toContainEqual({ system: "urn:x12:payer-claim-control-number:1935665544", value: "94060555410000" });
    expect(eobs[0].item[0]).toMatchObject({ productOrService: coding("http://www.ama-assn.org/go/cpt", "99211"), servicedDate: "2002-03-01", net: usd(800) });
    expect(eobs[0].item[0].adjudication).toContainEqual({ category: coding("https://codesystem.x12.org/005010/1033", "PR"), reason: coding("https://codesystem.x12.org/005010/1034", "1"), amount: usd(300) });
    expect(follow(b!, eobs[0].insurer)).toMatchObject({ name: "RUSHMORE LIFE" });
    const pr = one(b!, "PaymentReconciliation");
    expect(pr.detail).toHaveLength(2);
    expect(pr.paymentAmount.currency).toBe("USD");
  });

  it("837P → Claim (professional) with its parties", async () => {
    const [b] = await bundles("837_005010X222A2/demo.example1.837");
    const claim = one(b!, "Claim");
    expect(claim).toMatchObject({ type: coding("http://terminology.hl7.org/CodeSystem/claim-type", "professional"), use: "claim", created: "2006-10-15", billablePeriod: { start: "2006-10-03", end: "2006-10-10" } });
    expect(claim.identifier).toEqual([{ system: "urn:x12:patient-control-number:1912301953", value: "26463774" }]);
    expect(claim.diagnosis.map((d: Json) => d.diagnosisCodeableConcept.coding[0])).toEqual([
      { system: "http://hl7.org/fhir/sid/icd-9-cm", code: "034.0" },
      { system: "http://hl7.org/fhir/sid/icd-9-cm", code: "V73.89" },
    ]);
    expect(claim.item.map((i: Json) => [i.productOrService.coding[0].code, i.net.value])).toEqual([
      ["99213", 40],
      ["87070", 15],
      ["99214", 35],
      ["86663", 10],
    ]);
    expect(follow(b!, claim.patient)).toMatchObject({ resourceType: "Patient", name: [{ family: "SMITH", given: ["TED"] }] });
    expect(follow(b!, claim.insurer)).toMatchObject({ resourceType: "Organization", name: "KEY INSURANCE COMPANY" });
    expect(follow(b!, claim.provider)).toMatchObject({ name: "BEN KILDARE SERVICE" });
    expect(follow(b!, claim.item[0].encounter[0])).toMatchObject({ resourceType: "Encounter" });
  });

  it("837I → one institutional Claim per CLM", async () => {
    const [b] = await bundles("837_005010X223A3/two-claims-single-provider.837i");
    const claims = all(b!, "Claim");
    expect(claims).toHaveLength(2);
    expect(claims[0]).toMatchObject({ type: coding("http://terminology.hl7.org/CodeSystem/claim-type", "institutional"), subType: coding("https://www.nubc.org/CodeSystem/TypeOfBill", "0131"), billablePeriod: { start: "2005-03-15", end: "2005-03-15" } });
    expect(claims[0].identifier[0].value).toBe("756048Q");
    expect(claims[0].diagnosis[0].diagnosisCodeableConcept.coding[0]).toEqual({ system: "http://hl7.org/fhir/sid/icd-9-cm", code: "366.9" });
    expect(follow(b!, claims[0].insurer)).toMatchObject({ name: "TRICARE" });
    expect(follow(b!, claims[0].provider)).toMatchObject({ name: "JONES HOSPITAL" });
    expect(claims[1].identifier[0].value).not.toBe("756048Q");
  });
});
