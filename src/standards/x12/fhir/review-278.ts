// 278 request → Claim with use "preauthorization" per patient event (2000E), its services
// (2000F) as items; 278 response → ClaimResponse with the HCR decision and the
// authorization number (preAuthRef), the way Da Vinci PAS maps them.

import type { LoopNode } from "../loops";
import { comp, el, type Segment } from "../model";
import { head, loop1, loops, seg1, segs } from "../query";
import { EXTENSION, HCR_OUTCOME, HCR_TEXT, SYSTEM } from "./codes";
import type { FhirOutput, Identifier, Ref } from "./context";
import { diagnoses, serviceCode } from "./service-codes";
import { DIAGNOSIS_QUALIFIERS, icdFromX12 } from "./codes";
import { coverage, needLoop, nm1Identifier, party, person } from "./parties";
import { amount, clean, dtpPeriod, money } from "./values";

interface EventAt {
  umo: LoopNode;
  requester: LoopNode;
  subscriber: LoopNode;
  dependent?: LoopNode;
  event: LoopNode;
}

function events(root: LoopNode): EventAt[] {
  const out: EventAt[] = [];
  for (const a of loops(root, "2000A"))
    for (const b of loops(a, "2000B"))
      for (const c of loops(b, "2000C")) {
        for (const e of loops(c, "2000E")) out.push({ umo: a, requester: b, subscriber: c, event: e });
        for (const d of loops(c, "2000D")) for (const e of loops(d, "2000E")) out.push({ umo: a, requester: b, subscriber: c, dependent: d, event: e });
      }
  return out;
}

interface Parties {
  insurer: Ref;
  provider: Ref;
  patient: Ref;
  coverage: Ref;
  trace?: Identifier;
}

async function parties(out: FhirOutput, at: EventAt, key: string): Promise<Parties> {
  const umoLoop = needLoop(loop1(at.umo, "2010A"), "2010A", "UMO");
  const payerId = el(head(umoLoop), 9);
  const insurer = await party(out, umoLoop, { key: "umo", type: "Organization" });
  const provider = await party(out, needLoop(loop1(at.requester, "2010B"), "2010B", "requester"), { key: "requester" });
  const subscriberLoop = needLoop(loop1(at.subscriber, "2010C"), "2010C", "subscriber");
  const memberId = nm1Identifier(out, head(subscriberLoop), payerId)?.value;
  const subscriber = await person(out, subscriberLoop, { key: `${key}|subscriber`, payerId, memberId });
  const patient = at.dependent ? await person(out, needLoop(loop1(at.dependent, "2010D"), "2010D", "dependent"), { key: `${key}|dependent`, payerId, memberId, dependent: true }) : subscriber;
  const cov = await coverage(out, { memberId, payerId, beneficiary: patient, subscriber: subscriber.ref, payor: insurer, relationship: at.dependent ? "other" : "self", key: `${key}|coverage` });
  const trn = seg1(at.event, "TRN");
  const trace = trn ? traceIdentifier(out, trn) : undefined;
  return { insurer, provider, patient: patient.ref, coverage: cov, trace };
}

/** The service of a 2000F loop (SV1 professional, SV2 institutional), or the event's UM category. */
function serviceOf(ss: LoopNode): { productOrService: Record<string, unknown>; modifier?: unknown[]; quantity?: unknown; net?: unknown; institutional: boolean } {
  const sv1 = seg1(ss, "SV1");
  const sv2 = seg1(ss, "SV2");
  if (sv1) return { ...serviceCode(el(sv1, 1)), quantity: amount(el(sv1, 4)) !== undefined ? { value: amount(el(sv1, 4)) } : undefined, net: money(el(sv1, 2)), institutional: false };
  if (sv2) return { ...(el(sv2, 2) ? serviceCode(el(sv2, 2)) : { productOrService: { coding: [{ system: SYSTEM.revenue, code: el(sv2, 1) }] } }), net: money(el(sv2, 3)), quantity: amount(el(sv2, 5)) !== undefined ? { value: amount(el(sv2, 5)) } : undefined, institutional: true };
  const um = seg1(ss, "UM");
  return { productOrService: { coding: [{ system: SYSTEM.serviceType, code: el(um, 3) || "30" }] }, institutional: false };
}

/** A 2000F TRN as the item's trace number (PAS itemTraceNumber). */
export function itemTrace(out: FhirOutput, ss: LoopNode): Record<string, unknown>[] | undefined {
  const trn = ss.loop === "2000F" ? seg1(ss, "TRN") : undefined;
  return trn ? [{ url: EXTENSION.itemTraceNumber, valueIdentifier: traceIdentifier(out, trn) }] : undefined;
}

const traceIdentifier = (out: FhirOutput, trn: Segment): Identifier => ({ system: out.system("trn", el(trn, 3) || "unknown"), value: el(trn, 2) });

/** An HCR as an adjudication: the action code, and HCR02 (the review identification number) in PAS's reviewAction. */
function decision(hcr: Segment): Record<string, unknown> {
  const action = { coding: [{ system: SYSTEM.actionCode, code: el(hcr, 1) }], text: HCR_TEXT[el(hcr, 1)] };
  const review = [{ url: EXTENSION.reviewActionCode, valueCodeableConcept: action }, ...(el(hcr, 2) ? [{ url: "number", valueString: el(hcr, 2) }] : [])];
  return { extension: [{ url: EXTENSION.reviewAction, extension: review }], category: action };
}

/** 278 request → Claim (use preauthorization) per patient event. */
export async function map278Request(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, at] of events(root).entries()) {
    const key = `278|${i}`;
    const p = await parties(out, at, key);
    const um = seg1(at.event, "UM");
    const services = loops(at.event, "2000F");
    const eventPeriod = dtpPeriod(segs(at.event, "DTP")[0]);
    const items = (services.length ? services : [at.event]).map((ss, n) => {
      const { institutional: _i, ...service } = serviceOf(ss);
      const when = dtpPeriod(segs(ss, "DTP")[0]) ?? eventPeriod;
      return clean({ extension: itemTrace(out, ss), sequence: n + 1, category: el(um, 3) ? { coding: [{ system: SYSTEM.serviceType, code: el(um, 3) }] } : undefined, ...service, servicedPeriod: when, locationCodeableConcept: comp(um, 4, 1) ? { coding: [{ system: SYSTEM.placeOfService, code: comp(um, 4, 1) }] } : undefined });
    });
    const institutional = el(um, 1) === "AR" || services.some((s) => serviceOf(s).institutional);
    const careTeam: Record<string, unknown>[] = [];
    for (const l of [...loops(at.event, "2010EA"), ...services.flatMap((s) => loops(s, "2010F"))]) {
      const provider = await party(out, l, { key });
      if (!careTeam.some((c) => (c.provider as Ref).reference === provider.reference)) careTeam.push({ sequence: careTeam.length + 1, provider, role: { coding: [{ system: SYSTEM.careTeamRole, code: "primary" }] } });
    }
    const dx = diagnoses(at.event).map((d, n) => ({ sequence: n + 1, diagnosisCodeableConcept: { coding: [{ system: DIAGNOSIS_QUALIFIERS[d.qualifier]!.system, code: icdFromX12(d.code) }] } }));
    out.add(
      clean({
        resourceType: "Claim",
        identifier: p.trace ? [p.trace] : undefined,
        status: "active",
        type: { coding: [{ system: SYSTEM.claimType, code: institutional ? "institutional" : "professional" }] },
        use: "preauthorization",
        patient: p.patient,
        created,
        insurer: p.insurer,
        provider: p.provider,
        priority: { coding: [{ system: SYSTEM.processPriority, code: el(um, 6) === "U" || el(um, 6) === "03" ? "stat" : "normal" }] },
        careTeam,
        diagnosis: dx,
        insurance: [{ sequence: 1, focal: true, coverage: p.coverage }],
        item: items,
      }),
      key,
      p.trace,
    );
  }
}

/** 278 response → ClaimResponse (use preauthorization) per patient event. */
export async function map278Response(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, at] of events(root).entries()) {
    const key = `278r|${i}`;
    const p = await parties(out, at, key);
    const hcr = seg1(at.event, "HCR");
    const action = el(hcr, 1);
    const services = loops(at.event, "2000F");
    const request = p.trace ? await out.find("Claim", p.trace) : undefined;
    const items = services
      .map((ss, n) => ({ ss, n, h: seg1(ss, "HCR") }))
      .filter((x) => x.h)
      .map(({ ss, n, h }) => clean({ extension: itemTrace(out, ss), itemSequence: n + 1, adjudication: [decision(h!)] }));
    const period = dtpPeriod(seg1(at.event, "DTP", ["AAH"]));
    const rejections = [...segs(at.umo, "AAA"), ...segs(at.event, "AAA")];
    out.add(
      clean({
        resourceType: "ClaimResponse",
        identifier: p.trace ? [p.trace] : undefined,
        status: "active",
        type: { coding: [{ system: SYSTEM.claimType, code: el(seg1(at.event, "UM"), 1) === "AR" ? "institutional" : "professional" }] },
        use: "preauthorization",
        patient: p.patient,
        created,
        insurer: p.insurer,
        requestor: p.provider,
        request: request ?? (p.trace ? { identifier: p.trace } : undefined),
        outcome: rejections.length ? "error" : (HCR_OUTCOME[action] ?? "queued"),
        disposition: HCR_TEXT[action],
        preAuthRef: el(hcr, 2) || el(seg1(at.event, "REF", ["NT"]), 2) || undefined,
        preAuthPeriod: period,
        adjudication: hcr ? [decision(hcr)] : undefined,
        item: items,
        error: rejections.map((a) => ({ code: { coding: [{ system: SYSTEM.rejectReason, code: el(a, 3) }] } })),
      }),
      key,
      p.trace,
    );
  }
}
