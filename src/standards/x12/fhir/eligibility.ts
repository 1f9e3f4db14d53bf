// 270 → CoverageEligibilityRequest, 271 → CoverageEligibilityResponse: one per person the
// set asks about (2000C subscriber, or 2000D dependent with the subscriber's coverage).

import type { LoopNode } from "../loops";
import { el, repetitions, type Segment } from "../model";
import { descendants, head, loop1, loops, seg1, segs } from "../query";
import { EB_BENEFIT_TYPE, SYSTEM } from "./codes";
import type { FhirOutput, Identifier, Ref } from "./context";
import { coverage, needLoop, nm1Identifier, party, person } from "./parties";
import { amount, clean, dtpDate, money, term } from "./values";

interface Member {
  /** 2000C, or 2000D for a dependent. */
  level: LoopNode;
  name: LoopNode;
  subscriberName: LoopNode;
  dependent: boolean;
}

/** The people a 270/271 is about: each subscriber, and each dependent under one. */
function members(root: LoopNode): { source: LoopNode; receiver: LoopNode; member: Member }[] {
  const out: { source: LoopNode; receiver: LoopNode; member: Member }[] = [];
  for (const source of loops(root, "2000A")) {
    for (const receiver of loops(source, "2000B")) {
      for (const sub of loops(receiver, "2000C")) {
        const subscriberName = needLoop(loop1(sub, "2100C"), "2100C", "subscriber");
        const deps = loops(sub, "2000D");
        if (!deps.length || seg1(sub, "TRN")) out.push({ source, receiver, member: { level: sub, name: subscriberName, subscriberName, dependent: false } });
        for (const dep of deps) out.push({ source, receiver, member: { level: dep, name: needLoop(loop1(dep, "2100D"), "2100D", "dependent"), subscriberName, dependent: true } });
      }
    }
  }
  return out;
}

interface Parties {
  insurer: Ref;
  payerId: string;
  provider: Ref;
  patient: Ref;
  coverage: Ref;
  trace?: Identifier;
}

async function parties(out: FhirOutput, source: LoopNode, receiver: LoopNode, m: Member, key: string): Promise<Parties> {
  const payerLoop = needLoop(loop1(source, "2100A"), "2100A", "information source");
  const payerId = el(head(payerLoop), 9);
  const insurer = await party(out, payerLoop, { key: "payer", type: "Organization" });
  const provider = await party(out, needLoop(loop1(receiver, "2100B"), "2100B", "information receiver"), { key: "receiver" });
  const memberId = nm1Identifier(out, head(m.subscriberName), payerId)?.value;
  const subscriber = await person(out, m.subscriberName, { key: `${key}|subscriber`, payerId, memberId });
  const patient = m.dependent ? await person(out, m.name, { key: `${key}|dependent`, payerId, memberId, dependent: true }) : subscriber;
  const cov = await coverage(out, { memberId, payerId, beneficiary: patient, subscriber: subscriber.ref, payor: insurer, relationship: m.dependent ? "other" : "self", key: `${key}|coverage` });
  const trn = segs(m.level, "TRN")[0];
  const trace = trn ? { system: out.system("trn", el(trn, 3) || "unknown"), value: el(trn, 2) } : undefined;
  return { insurer, payerId, provider, patient: patient.ref, coverage: cov, trace };
}

/** 270 → CoverageEligibilityRequest per person. */
export async function map270(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, { source, receiver, member }] of members(root).entries()) {
    const key = `270|${i}`;
    const p = await parties(out, source, receiver, member, key);
    const eqs = descendants(member.name, "2110C", "2110D").map(head) as Segment[];
    out.add(
      clean({
        resourceType: "CoverageEligibilityRequest",
        identifier: p.trace ? [p.trace] : undefined,
        status: "active",
        purpose: [eqs.length ? "benefits" : "validation"],
        patient: p.patient,
        servicedDate: dtpDate(seg1(member.name, "DTP", ["291"])),
        created,
        provider: p.provider,
        insurer: p.insurer,
        insurance: [{ focal: true, coverage: p.coverage }],
        // EQ01 repeats (up to 99 service types); FHIR's item.category holds one: an item each.
        item: eqs.length ? eqs.flatMap((eq) => (repetitions(el(eq, 1)).length ? repetitions(el(eq, 1)) : ["30"]).map((code) => ({ category: { coding: [{ system: SYSTEM.serviceType, code }] } }))) : undefined,
      }),
      key,
      p.trace,
    );
  }
}

/** One item per EB03 service type (EB03 repeats; FHIR's item.category holds one), or one with none. */
function benefitItems(eb: LoopNode): Record<string, unknown>[] {
  const types = repetitions(el(head(eb), 3));
  return (types.length ? types : [undefined]).map((t) => benefitItem(eb, t));
}

function benefitItem(eb: LoopNode, serviceType: string | undefined): Record<string, unknown> {
  const s = head(eb)!;
  const code = el(s, 1);
  const type = EB_BENEFIT_TYPE[code];
  const money7 = money(el(s, 7));
  const percent = amount(el(s, 8));
  const benefit = type && (money7 || percent !== undefined) ? [clean({ type: { coding: [{ system: SYSTEM.benefitType, code: type }] }, allowedMoney: money7, allowedString: money7 ? undefined : percent !== undefined ? `${percent * 100}%` : undefined })] : undefined;
  const network = el(s, 12) === "Y" ? "in" : el(s, 12) === "N" ? "out" : undefined;
  const unit = el(s, 2) === "IND" ? "individual" : el(s, 2) === "FAM" ? "family" : undefined;
  const messages = segs(eb, "MSG").map((m) => el(m, 1));
  return clean({
    category: serviceType ? { coding: [{ system: SYSTEM.serviceType, code: serviceType }] } : undefined,
    name: el(s, 5) || undefined,
    description: messages.length ? messages.join(" ") : undefined,
    network: network ? { coding: [{ system: SYSTEM.benefitNetwork, code: network }] } : undefined,
    unit: unit ? { coding: [{ system: SYSTEM.benefitUnit, code: unit }] } : undefined,
    excluded: code === "I" ? true : undefined,
    authorizationRequired: el(s, 11) === "Y" ? true : el(s, 11) === "N" ? false : undefined,
    benefit,
  });
}

/** 271 → CoverageEligibilityResponse per person. */
export async function map271(out: FhirOutput, root: LoopNode, created: string): Promise<void> {
  for (const [i, { source, receiver, member }] of members(root).entries()) {
    const key = `271|${i}`;
    const p = await parties(out, source, receiver, member, key);
    const ebs = descendants(member.name, "2110C", "2110D");
    const rejections = [...segs(source, "AAA"), ...segs(loop1(source, "2100A"), "AAA"), ...segs(loop1(receiver, "2100B"), "AAA"), ...segs(member.name, "AAA")];
    const codes = ebs.map((e) => el(head(e), 1));
    const inforce = codes.some((c) => ["1", "2", "3", "4", "5"].includes(c)) ? true : codes.some((c) => ["6", "7", "8"].includes(c)) ? false : undefined;
    // TRN*2 echoes the request's trace: the request is found by it.
    const request = p.trace ? await out.find("CoverageEligibilityRequest", p.trace) : undefined;
    // The plan's term (2100C/D: 291 plan, 346 begin, 347 end), else the first benefit's (2110: 292, 348/349), else eligibility (307, 356/357).
    const benefitPeriod =
      term(segs(member.name, "DTP"), { whole: ["291"], begin: "346", end: "347" }) ??
      ebs.map((e) => term(segs(e, "DTP"), { whole: ["292"], begin: "348", end: "349" })).find(Boolean) ??
      term(segs(member.name, "DTP"), { whole: ["307"], begin: "356", end: "357" });
    const items = ebs.flatMap(benefitItems).filter((x) => Object.keys(x).length);
    out.add(
      clean({
        resourceType: "CoverageEligibilityResponse",
        identifier: p.trace ? [p.trace] : undefined,
        status: "active",
        purpose: ["benefits"],
        patient: p.patient,
        created,
        requestor: p.provider,
        request: request ?? (p.trace ? { identifier: p.trace } : { display: "270 request" }),
        outcome: rejections.length ? "error" : "complete",
        insurer: p.insurer,
        insurance: rejections.length ? undefined : [clean({ coverage: p.coverage, inforce, benefitPeriod, item: items.length ? items : undefined })],
        error: rejections.length ? rejections.map((a) => ({ code: { coding: [{ system: SYSTEM.rejectReason, code: el(a, 3) }] } })) : undefined,
      }),
      key,
      p.trace,
    );
  }
}
