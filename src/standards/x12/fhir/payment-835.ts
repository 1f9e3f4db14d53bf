// 835 → one PaymentReconciliation for the payment (BPR/TRN, payer and payee, a detail per
// claim and per PLB adjustment) and one ExplanationOfBenefit per CLP with its service lines
// and CAS adjustments.

import type { Resource } from "../../../platform/fhir-resource";
import type { LoopNode } from "../loops";
import { components, el, type Segment } from "../model";
import { descendants, head, loop1, segs, seg1 } from "../query";
import { CLP_STATUS, SYSTEM } from "./codes";
import type { FhirOutput, Ref } from "./context";
import { serviceCode } from "./service-codes";
import { coverage, loneLoop, n1Party, needLoop, nm1Identifier, person } from "./parties";
import { amount, clean, date, money } from "./values";
import { X12Error } from "../errors";

/** The same person: family and first name alike (the 835 has no birth date). */
const samePerson = (a: Segment, b: Segment) => el(a, 3) === el(b, 3) && el(a, 4) === el(b, 4);

function needSegment(s: Segment | undefined, loop: LoopNode, what: string): Segment {
  if (s) return s;
  throw new X12Error("MISSING_SEGMENT", `loop ${loop.loop} has no ${what}: the FHIR mapping needs it`, { loop: loop.loop, segmentIndex: head(loop)?.index });
}

/** CAS triplets as adjudications (category = group code, reason = CARC, amount, quantity). */
export function casAdjudications(cas: Segment[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const s of cas) {
    for (let i = 1; i < s.elements.length; i += 3) {
      const reason = s.elements[i];
      if (!reason) continue;
      out.push(
        clean({
          category: { coding: [{ system: SYSTEM.adjustmentGroup, code: el(s, 1) }] },
          reason: { coding: [{ system: SYSTEM.adjustmentReason, code: reason }] },
          amount: money(s.elements[i + 1]),
          value: amount(s.elements[i + 2]),
        }),
      );
    }
  }
  return out;
}

const adjudication = (code: string, v: string | undefined) => {
  const m = money(v);
  return m ? { category: { coding: [{ system: SYSTEM.adjudication, code }] }, amount: m } : undefined;
};

/** PLB adjustment pairs (reason:reference, amount): up to six per segment. */
export function plbAdjustments(plb: Segment): { reason: string; reference?: string; amount: number }[] {
  const out: { reason: string; reference?: string; amount: number }[] = [];
  for (let i = 2; i + 1 < plb.elements.length; i += 2) {
    const [reason = "", reference] = components(plb.elements[i]!);
    const a = amount(plb.elements[i + 1]);
    if (reason && a !== undefined) out.push({ reason, reference: reference || undefined, amount: a });
  }
  return out;
}

interface PaymentContext {
  out: FhirOutput;
  payer: Ref;
  payerId: string;
  payee: Ref;
  /** The payee's NPI: claims are numbered per billing provider. */
  payeeNpi: string;
  paymentDate?: string;
  trace: string;
  created: string;
}

async function eob(c: PaymentContext, claim: LoopNode): Promise<{ ref: Ref; pcn: string; paid?: number }> {
  const { out } = c;
  const clp = head(claim)!;
  const pcn = el(clp, 1);
  // NM1*QC is the patient; NM1*IL the insured, sent when the insured is someone else (a
  // dependent's claim). Both may carry the same member id: each is their own Patient.
  const patientNm1 = needSegment(seg1(claim, "NM1", ["QC"]), claim, "NM1*QC (patient name)");
  const insuredNm1 = seg1(claim, "NM1", ["IL"]);
  const dependent = !!insuredNm1 && !samePerson(insuredNm1, patientNm1);
  const memberId = nm1Identifier(out, insuredNm1 ?? patientNm1, c.payerId)?.value;
  const patient = await person(out, loneLoop(patientNm1, "2100"), { key: `patient|${pcn}`, payerId: c.payerId, memberId, dependent });
  const subscriber = dependent ? await person(out, loneLoop(insuredNm1, "2100"), { key: `insured|${pcn}`, payerId: c.payerId, memberId }) : patient;
  const cov = await coverage(out, { memberId, payerId: c.payerId, beneficiary: patient, subscriber: subscriber.ref, payor: c.payer, relationship: dependent ? "other" : "self", filing: el(clp, 6) || undefined, key: `coverage|${pcn}` });
  const pcnId = { system: out.system("patient-control-number", c.payeeNpi || "unknown-provider"), value: pcn };
  const claimRef = await out.find("Claim", pcnId);
  const services = descendants(claim, "2110");
  const institutional = !!seg1(claim, "MIA") || services.some((s) => components(el(head(s), 1))[0] === "NU" || !!el(head(s), 4));
  const statement = segs(claim, "DTM", ["232", "233"]).map((d) => date(el(d, 2)));
  const items = services.map((svc, i) => {
    const s = head(svc)!;
    const serviceDate = seg1(svc, "DTM", ["472", "150"]);
    return clean({
      sequence: i + 1,
      ...serviceCode(el(s, 1)),
      servicedDate: date(el(serviceDate, 2)),
      quantity: amount(el(s, 5)) !== undefined ? { value: amount(el(s, 5)) } : undefined,
      net: money(el(s, 2)),
      // AMT*B6: the allowed amount, FHIR's "eligible".
      adjudication: [adjudication("submitted", el(s, 2)), adjudication("eligible", el(seg1(svc, "AMT", ["B6"]), 2)), adjudication("benefit", el(s, 3)), ...casAdjudications(segs(svc, "CAS"))].filter(Boolean),
    });
  });
  const payerClaim = el(clp, 7);
  const identifier = [
    ...(payerClaim ? [{ system: out.system("payer-claim-control-number", c.payerId), value: payerClaim }] : []),
    pcnId,
  ];
  const resource: Resource = clean({
    resourceType: "ExplanationOfBenefit",
    identifier,
    status: "active",
    type: { coding: [{ system: SYSTEM.claimType, code: institutional ? "institutional" : "professional" }] },
    use: "claim",
    patient: patient.ref,
    billablePeriod: statement[0] ? { start: statement[0], end: statement[1] ?? statement[0] } : undefined,
    created: c.created,
    insurer: c.payer,
    provider: c.payee,
    claim: claimRef,
    outcome: "complete",
    disposition: CLP_STATUS[el(clp, 2)],
    insurance: [{ focal: true, coverage: cov }],
    item: items.length ? items : undefined,
    adjudication: (() => {
      const a = casAdjudications(segs(claim, "CAS"));
      return a.length ? a : undefined;
    })(),
    total: [adjudication("submitted", el(clp, 3)), adjudication("benefit", el(clp, 4))].filter(Boolean),
    payment: clean({ type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/ex-paymenttype", code: "complete" }] }, date: c.paymentDate, amount: money(el(clp, 4)), identifier: c.trace ? { value: c.trace } : undefined }),
  });
  const ref = out.add(resource, `eob|${pcn}|${payerClaim}`, payerClaim ? identifier[0] : undefined);
  return { ref, pcn, paid: amount(el(clp, 4)) };
}

/** All resources of an 835 set, into `out`. */
export async function map835(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  const bpr = seg1(root, "BPR")!;
  const trn = seg1(root, "TRN");
  const payerLoop = needLoop(loop1(root, "1000A"), "1000A", "payer");
  const payer = await n1Party(out, payerLoop, "payer");
  const payerId = el(head(payerLoop), 4) || el(seg1(payerLoop, "REF", ["2U"]), 2) || el(trn, 3);
  const payeeLoop = needLoop(loop1(root, "1000B"), "1000B", "payee");
  const payee = await n1Party(out, payeeLoop, "payee");
  const payeeNpi = el(head(payeeLoop), 3) === "XX" ? el(head(payeeLoop), 4) : "";
  const trace = el(trn, 2);
  const paymentDate = date(el(bpr, 16));
  const c: PaymentContext = { out, payer, payerId, payee, payeeNpi, paymentDate, trace, created };
  const details: Record<string, unknown>[] = [];
  for (const claim of descendants(root, "2100")) {
    const e = await eob(c, claim);
    details.push(clean({ identifier: { system: out.system("patient-control-number", payeeNpi || "unknown-provider"), value: e.pcn }, type: { coding: [{ system: SYSTEM.paymentType, code: "payment" }] }, response: e.ref, date: paymentDate, payee, amount: money(String(e.paid ?? 0)) }));
  }
  for (const plb of segs(root, "PLB")) {
    for (const adj of plbAdjustments(plb)) {
      // A PLB amount reduces the payment: a positive amount is money taken back.
      details.push(clean({ identifier: adj.reference ? { system: out.system("plb-reference", adj.reason), value: adj.reference } : undefined, type: { coding: [{ system: SYSTEM.paymentType, code: "adjustment" }], text: adj.reason }, date: date(el(plb, 2)), payee, amount: { value: -adj.amount, currency: "USD" } }));
    }
  }
  const id = trace ? { system: out.system("trn", payerId || "payer"), value: trace } : undefined;
  out.add(
    clean({
      resourceType: "PaymentReconciliation",
      identifier: id ? [id] : undefined,
      status: "active",
      created,
      paymentIssuer: payer,
      requestor: payee,
      outcome: "complete",
      disposition: el(bpr, 1) === "H" ? "Notification only, no payment" : undefined,
      paymentDate: paymentDate ?? created.slice(0, 10),
      paymentAmount: money(el(bpr, 2)) ?? { value: 0, currency: "USD" },
      paymentIdentifier: trace ? { value: trace } : undefined,
      detail: details.length ? details : undefined,
    }),
    `payment|${trace}`,
    id,
  );
}
