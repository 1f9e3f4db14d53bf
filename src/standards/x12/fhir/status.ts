// Claim status. 276 ↔ Task: a request to report the status of a claim (focus: the Claim,
// for: the patient, owner: the payer). 277 and 277CA → ClaimResponse: the payer's view of
// the claim (outcome from the STC category, codes as processNote/error), as Da Vinci PAS
// answers its status inquiries with a ClaimResponse.

import type { LoopNode } from "../loops";
import { comp, components, el, type Segment } from "../model";
import { head, loop1, loops, seg1, segs } from "../query";
import { SYSTEM, statusOutcome } from "./codes";
import type { FhirOutput, Identifier, Ref } from "./context";
import { serviceCode } from "./service-codes";
import { coverage, needLoop, nm1Identifier, party, person } from "./parties";
import { clean, date, dtpPeriod, money } from "./values";

export const TASK_CODE = "claim-status";

interface ClaimAt {
  payer: LoopNode;
  receiver: LoopNode;
  provider: LoopNode;
  person: LoopNode;
  /** 2100D: the subscriber, who is the person unless a dependent (2100E) is. */
  subscriber: LoopNode;
  /** DMG of the person's and the subscriber's HL levels (the 276 writes it there). */
  personDmg?: Segment;
  subscriberDmg?: Segment;
  claim: LoopNode;
}

/** Every claim loop (2200D/2200E) with the parties above it. */
function claims(root: LoopNode): ClaimAt[] {
  const out: ClaimAt[] = [];
  for (const a of loops(root, "2000A"))
    for (const b of loops(a, "2000B"))
      for (const c of loops(b, "2000C"))
        for (const d of loops(c, "2000D")) {
          const subscriber = needLoop(loop1(d, "2100D"), "2100D", "subscriber");
          const subscriberDmg = seg1(d, "DMG");
          for (const claim of loops(d, "2200D")) out.push({ payer: a, receiver: b, provider: c, person: subscriber, subscriber, personDmg: subscriberDmg, subscriberDmg, claim });
          for (const e of loops(d, "2000E")) for (const claim of loops(e, "2200E")) out.push({ payer: a, receiver: b, provider: c, person: needLoop(loop1(e, "2100E"), "2100E", "dependent"), subscriber, personDmg: seg1(e, "DMG"), subscriberDmg, claim });
        }
  return out;
}

interface Common {
  payer: Ref;
  provider: Ref;
  providerNpi: string;
  patient: Ref;
  pcn?: Identifier;
  payerClaim?: Identifier;
  trace: Identifier;
  claimRef?: Ref;
  coverage: Ref;
}

async function common(out: FhirOutput, at: ClaimAt, key: string): Promise<Common> {
  const payerLoop = needLoop(loop1(at.payer, "2100A"), "2100A", "payer");
  const payerId = el(head(payerLoop), 9);
  const payer = await party(out, payerLoop, { key: "payer", type: "Organization" });
  const providerLoop = needLoop(loop1(at.provider, "2100C"), "2100C", "provider");
  const providerNpi = el(head(providerLoop), 8) === "XX" ? el(head(providerLoop), 9) : "";
  const provider = await party(out, providerLoop, { key: "provider" });
  const memberId = nm1Identifier(out, head(at.subscriber), payerId)?.value;
  const subscriber = await person(out, at.subscriber, { key: `${key}|subscriber`, payerId, memberId, dmg: at.subscriberDmg });
  const patient = at.person === at.subscriber ? subscriber : await person(out, at.person, { key: `${key}|patient`, payerId, memberId, dmg: at.personDmg, dependent: true });
  const cov = await coverage(out, { memberId, payerId, beneficiary: patient, subscriber: subscriber.ref, payor: payer, relationship: at.person === at.subscriber ? "self" : "other", key: `${key}|coverage` });
  const trn = head(at.claim)!;
  const ej = seg1(at.claim, "REF", ["EJ"]);
  const k1 = seg1(at.claim, "REF", ["1K"]);
  // In a 277CA, TRN02 is the patient control number the claim was sent with.
  const pcnValue = el(ej, 2) || "";
  const pcn = pcnValue ? { system: out.system("patient-control-number", providerNpi || "unknown-provider"), value: pcnValue } : undefined;
  const payerClaim = k1 ? { system: out.system("payer-claim-control-number", payerId), value: el(k1, 2) } : undefined;
  const trace = { system: out.system("trn", el(head(loop1(at.receiver, "2100B")), 9) || "receiver"), value: el(trn, 2) };
  const claimRef = pcn ? await out.find("Claim", pcn) : undefined;
  return { payer, provider, providerNpi, patient: patient.ref, pcn, payerClaim, trace, claimRef, coverage: cov };
}

/** 276 → Task per claim asked about. */
export async function map276(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, at] of claims(root).entries()) {
    const key = `276|${i}`;
    const c = await common(out, at, key);
    const input: Record<string, unknown>[] = [];
    const text = (t: string) => ({ text: t });
    input.push({ type: text("coverage"), valueReference: c.coverage });
    if (c.pcn) input.push({ type: text("patient-control-number"), valueIdentifier: c.pcn });
    if (c.payerClaim) input.push({ type: text("payer-claim-control-number"), valueIdentifier: c.payerClaim });
    const amt = money(el(seg1(at.claim, "AMT", ["T3"]), 2));
    if (amt) input.push({ type: text("billed-amount"), valueMoney: amt });
    const dates = dtpPeriod(seg1(at.claim, "DTP", ["472"]));
    if (dates) input.push({ type: text("service-period"), valuePeriod: dates });
    for (const svc of loops(at.claim, "2210D", "2210E")) {
      const s = head(svc)!;
      input.push({ type: text("service-line"), valueCodeableConcept: serviceCode(el(s, 1)).productOrService });
    }
    out.add(
      clean({
        resourceType: "Task",
        identifier: [c.trace],
        status: "requested",
        intent: "order",
        code: { coding: [{ system: out.system("task-code"), code: TASK_CODE }] },
        focus: c.claimRef ?? (c.pcn ? { identifier: c.pcn, type: "Claim" } : undefined),
        for: c.patient,
        authoredOn: created,
        requester: c.provider,
        owner: c.payer,
        input: input.length ? input : undefined,
      }),
      key,
      c.trace,
    );
  }
}

/** 277 / 277CA → ClaimResponse per claim reported on. */
export async function map277(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, at] of claims(root).entries()) {
    const key = `277|${i}`;
    const c = await common(out, at, key);
    const stcs = segs(at.claim, "STC");
    const stc = stcs[0];
    const category = comp(stc, 1, 1);
    const codeOf = (s: typeof stc) => `${comp(s, 1, 1)}:${comp(s, 1, 2)}${comp(s, 1, 3) ? `:${comp(s, 1, 3)}` : ""}`;
    const outcome = category ? statusOutcome(category) : "queued";
    const services = loops(at.claim, "2220D", "2220E");
    const institutional = services.some((s) => components(el(head(s), 1))[0] === "NU");
    const items = services.map((svc, n) => {
      const s = head(svc)!;
      const sStc = seg1(svc, "STC");
      return {
        itemSequence: n + 1,
        adjudication: [money(el(s, 2)) && { category: { coding: [{ system: SYSTEM.adjudication, code: "submitted" }] }, amount: money(el(s, 2)) }, money(el(s, 3)) && { category: { coding: [{ system: SYSTEM.adjudication, code: "benefit" }] }, amount: money(el(s, 3)) }].filter(Boolean),
        noteNumber: sStc ? [stcs.length + n + 1] : undefined,
      };
    });
    const notes = [
      ...stcs.map((s, n) => ({ number: n + 1, type: "display", text: `Claim status ${codeOf(s)}${date(el(s, 2)) ? ` as of ${date(el(s, 2))}` : ""}` })),
      ...services.map((svc, n) => {
        const sStc = seg1(svc, "STC");
        return sStc ? { number: stcs.length + n + 1, type: "display", text: `Line ${n + 1} status ${codeOf(sStc)}` } : undefined;
      }),
    ].filter((x) => x !== undefined);
    const errors = stcs.filter((s) => statusOutcome(comp(s, 1, 1)) === "error");
    const paid = money(el(stc, 5));
    const identifier = [c.payerClaim, c.trace].filter((x): x is Identifier => !!x);
    out.add(
      clean({
        resourceType: "ClaimResponse",
        identifier,
        status: "active",
        type: { coding: [{ system: SYSTEM.claimType, code: institutional ? "institutional" : "professional" }] },
        use: "claim",
        patient: c.patient,
        created,
        insurer: c.payer,
        requestor: c.provider,
        request: c.claimRef ?? (c.pcn ? { identifier: c.pcn } : undefined),
        outcome,
        disposition: stc ? `Claim status ${codeOf(stc)}` : undefined,
        item: items.some((x) => x.adjudication.length) ? items.filter((x) => x.adjudication.length).map((x) => clean(x)) : undefined,
        total: [money(el(stc, 4)) && { category: { coding: [{ system: SYSTEM.adjudication, code: "submitted" }] }, amount: money(el(stc, 4)) }, paid && { category: { coding: [{ system: SYSTEM.adjudication, code: "benefit" }] }, amount: paid }].filter(Boolean),
        payment: paid && date(el(stc, 6)) ? clean({ type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/ex-paymenttype", code: "complete" }] }, date: date(el(stc, 6)), amount: paid, identifier: el(stc, 9) ? { value: el(stc, 9) } : undefined }) : undefined,
        processNote: notes.length ? notes : undefined,
        error: errors.length ? errors.map((s) => ({ code: { coding: [{ system: SYSTEM.statusCategory, code: comp(s, 1, 1) }, { system: SYSTEM.statusCode, code: comp(s, 1, 2) }] } })) : undefined,
      }),
      key,
      c.payerClaim,
    );
  }
}
