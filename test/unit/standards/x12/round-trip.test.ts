// X12 → FHIR → X12 for every set the service writes, checked by an independent parser:
// node-x12 in strict mode reads both the source file and the file written back (it checks
// SE01, SE02, GE/IEA control numbers and counts), and every element the FHIR mapping maps
// must hold the same value in both. The FHIR side is compared too: the written file maps to
// the same resources.
import { X12Parser } from "node-x12";
import { describe, expect, it } from "vitest";
import type { Resource } from "../../../../src/features/fhir/port";
import { envelope, type SetToWrite, writeX12 } from "../../../../src/standards/x12/build";
import { bundleLookup, type Lookup } from "../../../../src/standards/x12/fhir/from-fhir";
import { x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { claimTo837 } from "../../../../src/standards/x12/fhir/to-837";
import { paymentTo835 } from "../../../../src/standards/x12/fhir/to-835";
import { eligibilityTo270, preauthTo278, statusTaskTo276 } from "../../../../src/standards/x12/fhir/to-requests";
import { readX12 } from "../../../../src/standards/x12/read";
import { all, type Json, mapped } from "./fhir-support";
import { brief, fixture } from "./support";

/** A mapped element: segment `seg` (with element 01 one of `q`), its elements `els`; `day`: compare the date part only. */
interface Mapped {
  seg: string;
  q?: readonly string[];
  els: readonly number[];
  day?: boolean;
  /** A DTP03 compared as a period (D8 X = RD8 X-X). */
  period?: boolean;
}

/** Values of the selected elements, per occurrence, as node-x12 reads them (composites with ":"). */
function values(text: string, m: Mapped): string[][] {
  const ix = new X12Parser(true).parse(text) as unknown as { header: { elements: { value: string }[] }; functionalGroups: { transactions: { segments: { tag: string; elements: { value: string }[] }[] }[] }[] };
  const component = ix.header.elements[15]!.value;
  const segs = ix.functionalGroups.flatMap((g) => g.transactions.flatMap((t) => t.segments));
  return segs
    .filter((s) => s.tag === m.seg && (!m.q || m.q.includes(s.elements[0]?.value ?? "")))
    .map((s) => m.els.map((n) => {
      const v = (s.elements[n - 1]?.value ?? "").split(component).join(":");
      // D8 and an RD8 of one day name the same period.
      return m.day ? v.slice(0, 8) : m.period && !v.includes("-") && v ? `${v}-${v}` : v;
    }));
}

const S = (seg: string, els: number[], q?: string[], day?: boolean): Mapped => ({ seg, q, els, day });
const DATES = (q: string[]): Mapped => ({ seg: "DTP", q, els: [3], period: true });

// What each mapping maps (docs/x12.md, "FHIR mappings"); the envelope's parties and 1000A/B come from the caller.
const PERSON = [S("NM1", [3, 4, 5, 8, 9], ["IL"]), S("NM1", [3, 4], ["QC", "03"]), S("DMG", [2, 3]), S("HL", [3])];
const CLAIM = [
  ...PERSON,
  S("BHT", [4]),
  S("NM1", [3, 8, 9], ["85"]),
  S("REF", [2], ["EI"]),
  S("PRV", [3]),
  S("NM1", [3, 9], ["PR"]),
  S("SBR", [2, 3, 9]),
  S("PAT", [1]),
  S("CLM", [1, 2, 5]),
  S("HI", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
  S("NM1", [3, 4, 9], ["82", "71"]),
  S("LX", [1]),
  S("SV1", [1, 2, 3, 4, 7]),
  S("SV2", [1, 2, 3, 4, 5]),
  DATES(["472", "434"]),
  S("DTP", [3], ["435"], true),
  S("CL1", [1, 2, 3]),
  S("N3", [1, 2]),
  S("N4", [1, 2, 3]),
];
const REQUESTER = [S("NM1", [3, 8, 9], ["1P", "FA"]), S("BHT", [4]), ...PERSON];

const env = { submitter: { name: "NORTHWIND BILLING SERVICES", id: "NWB001", contactName: "DANA ROSS", phone: "5555550100" }, receiver: { name: "CASCADE HEALTH PLAN", id: "CHP0001" } };

const CASES: { name: string; type: string; write: (r: Resource, l: Lookup) => SetToWrite; mapped: Mapped[] }[] = [
  ...["837P-subscriber.x12", "837P-dependent.x12"].map((name) => ({ name, type: "Claim", write: (r: Resource, l: Lookup) => claimTo837(r, l, env), mapped: CLAIM })),
  ...["837I-inpatient.x12", "837I-outpatient.x12", "837I-emergency.x12"].map((name) => ({ name, type: "Claim", write: (r: Resource, l: Lookup) => claimTo837(r, l, env), mapped: CLAIM })),
  ...["270-subscriber.x12", "270-dependent.x12"].map((name) => ({ name, type: "CoverageEligibilityRequest", write: eligibilityTo270, mapped: [...REQUESTER, S("NM1", [3, 9], ["PR"]), S("TRN", [1, 2, 3]), S("DTP", [3], ["291"]), S("EQ", [1])] })),
  ...["276-claim.x12", "276-dependent.x12"].map((name) => ({
    name,
    type: "Task",
    write: statusTaskTo276,
    mapped: [...REQUESTER, S("NM1", [3, 9], ["PR"]), S("TRN", [2]), S("REF", [2], ["1K", "EJ"]), S("AMT", [2], ["T3"]), DATES(["472"])],
  })),
  ...["278-request.x12", "278-dependent-request.x12"].map((name) => ({
    name,
    type: "Claim",
    write: preauthTo278,
    mapped: [...REQUESTER, S("NM1", [3, 9], ["X3"]), S("TRN", [2, 3]), S("UM", [1, 3, 4]), S("HI", [1, 2, 3, 4]), S("SV1", [1, 2, 3, 4]), DATES(["472", "435"]), S("NM1", [3, 4, 9], ["SJ"])],
  })),
  ...["835-payment.x12", "835-denial.x12", "835-dependent.x12"].map((name) => ({
    name,
    type: "PaymentReconciliation",
    write: paymentTo835,
    mapped: [
      S("BPR", [1, 2, 16]),
      S("TRN", [2, 3]),
      S("DTM", [2], ["405", "232", "233", "472"]),
      S("N1", [1, 2]),
      S("N1", [3, 4], ["PE"]),
      S("N3", [1, 2]),
      S("N4", [1, 2, 3]),
      S("REF", [2], ["TJ"]),
      S("CLP", [1, 2, 3, 4, 6, 7]),
      S("CAS", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
      S("NM1", [3, 4, 5], ["QC"]),
      S("NM1", [3, 4, 5, 8, 9], ["IL"]),
      S("SVC", [1, 2, 3, 5]),
      S("AMT", [2], ["B6"]),
      S("PLB", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]),
    ],
  })),
];

describe("X12 → FHIR → X12 keeps every mapped element (read back by node-x12, strict)", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const source = fixture(c.name);
    const before = await mapped(c.name);
    const resource = all(before, c.type)[0] as Resource;
    const written = writeX12({ interchanges: [envelope([c.write(resource, bundleLookup(before))], { sender: "SENDER", receiver: "RECEIVER", control: 7, at: new Date("2026-03-01T10:00:00Z") })] });
    // Both readers find the written file clean: ours (loops, codes) and node-x12 (envelope, counts).
    expect(brief(readX12(written).issues)).toEqual([]);
    expect(() => new X12Parser(true).parse(written)).not.toThrow();
    for (const m of c.mapped) expect(values(written, m), `${m.seg}${m.q ? `*${m.q.join("/")}` : ""} ${m.els.join(",")}`).toEqual(values(source, m));
    // And the written file maps to the same resource.
    const [again] = await x12ToFhir(readX12(written));
    const strip = (r: Json) => JSON.parse(JSON.stringify(r).replace(/urn:uuid:[0-9a-f-]+/g, "ref"));
    const a = strip(all(before, c.type)[0]);
    const z = strip(all(again!.bundle, c.type)[0]);
    if (c.type === "PaymentReconciliation") expect(all(again!.bundle, "ExplanationOfBenefit").map(strip)).toEqual(all(before, "ExplanationOfBenefit").map(strip));
    for (const k of ["identifier", "item", "diagnosis", "supportingInfo", "careTeam", "total", "billablePeriod", "servicedDate", "input", "created", "authoredOn", "detail", "paymentAmount", "paymentDate", "disposition"]) {
      if (k === "input") expect(z.input?.filter((i: Json) => i.type.text !== "service-line"), k).toEqual(a.input?.filter((i: Json) => i.type.text !== "service-line"));
      else expect(z[k], k).toEqual(a[k]);
    }
  });

  it("node-x12 strict refuses what it should: a wrong SE01 in a written file", () => {
    const text = fixture("837P-subscriber.x12").replace("SE*31*", "SE*30*");
    expect(() => new X12Parser(true).parse(text)).toThrow(/SE01/);
  });
});
