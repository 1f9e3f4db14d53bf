// Requests written from FHIR: CoverageEligibilityRequest → 270, Task (claim status) → 276,
// Claim (use preauthorization) → 278 request. The party levels (2000A payer, 2000B
// provider, 2000C subscriber, 2000D dependent) are shared; each set adds its own detail.

import type { Resource } from "../../../platform/fhir-resource";
import type { SetToWrite } from "../build";
import { composite, segment, type Segment } from "../model";
import { EXTENSION, icdToX12, SYSTEM, serviceQualifier } from "./codes";
import { arr, code, dateTime, deref, dmg, hlCounter, identifierValue, type Json, type Lookup, memberIdOf, need, nm1, npiOf, obj, payerIdOf, str, traceOf, traceSystemId } from "./from-fhir";
import { x12Amount, x12Date } from "./values";

interface People {
  payer: Json;
  provider: Json;
  patient: Json;
  subscriber: Json;
  memberId: string;
  dependent: boolean;
}

function people(lookup: Lookup, r: Json, payerPath: string, providerPath: string, patientPath: string, coverageRef: unknown): People {
  const payer = deref(lookup, r[payerPath], `${r.resourceType}.${payerPath}`);
  const provider = deref(lookup, r[providerPath], `${r.resourceType}.${providerPath}`);
  const patient = deref(lookup, r[patientPath], `${r.resourceType}.${patientPath}`);
  const coverage = coverageRef ? deref(lookup, coverageRef, `${r.resourceType}.insurance.coverage`) : undefined;
  const subRef = str(obj(coverage?.subscriber)?.reference);
  const subscriber = (subRef ? lookup(subRef) : undefined) ?? patient;
  const memberId = need(str(coverage?.subscriberId) ?? memberIdOf(coverage) ?? memberIdOf(subscriber), "Coverage.subscriberId or the subscriber's member id");
  return { payer, provider, patient, subscriber, memberId, dependent: subscriber !== patient };
}

/** Payer, provider, subscriber (and dependent) levels; `detail` is written at the patient's level. */
function levels(p: People, payerEntity: string, providerEntity: string, patientEntity: string, subscriberDetail: Segment[], patientDetail: Segment[], providerLevel?: string): Segment[] {
  const hl = hlCounter();
  const out: Segment[] = [];
  const [a, aId] = hl(undefined, "20", true);
  out.push(a, nm1(payerEntity, p.payer, "PI", need(payerIdOf(p.payer), "payer Organization.identifier (payer id)")));
  const [b, bId] = hl(aId, "21", true);
  out.push(b, nm1(providerEntity, p.provider, "XX", need(npiOf(p.provider), "provider identifier (NPI)")));
  let parent = bId;
  if (providerLevel) {
    const [c, cId] = hl(bId, providerLevel, true);
    out.push(c, nm1("1P", p.provider, "XX", npiOf(p.provider)));
    parent = cId;
  }
  const [s, sId] = hl(parent, "22", p.dependent || patientDetail.length > 0);
  out.push(s, ...(p.dependent ? [] : subscriberDetail), nm1("IL", p.subscriber, "MI", p.memberId), ...(p.dependent ? [] : dmg(p.subscriber)));
  if (p.dependent) {
    const [d] = hl(sId, "23", patientDetail.length > 0);
    out.push(d, ...subscriberDetail, nm1(patientEntity, p.patient, undefined, undefined), ...dmg(p.patient));
  }
  return out;
}

/** CoverageEligibilityRequest → 270. */
export function eligibilityTo270(request: Resource, lookup: Lookup): SetToWrite {
  const p = people(lookup, request, "insurer", "provider", "patient", arr(request.insurance)[0]?.coverage);
  const [date, time] = dateTime(str(request.created));
  const [trace, originator] = traceOf(arr(request.identifier)[0], identifierValue(p.provider, SYSTEM.ein), "CoverageEligibilityRequest.identifier");
  const trn = [segment("TRN", "1", trace, originator)];
  const body: Segment[] = [segment("BHT", "0022", "13", trace, date, time)];
  const served = x12Date(str(request.servicedDate));
  const eqs = arr(request.item).map((i) => segment("EQ", code(i.category, SYSTEM.serviceType) ?? "30"));
  const tail = [...(served ? [segment("DTP", "291", "D8", served)] : []), ...(eqs.length ? eqs : [segment("EQ", "30")])];
  const lv = levels(p, "PR", "1P", "03", trn, []);
  // The DTP and EQ follow the patient's name and demographics.
  body.push(...lv, ...tail);
  return { set: "270", version: "005010X279A1", body };
}

/** A Task input value by its type text. */
const input = (task: Json, type: string, key: string): unknown => arr(task.input).find((i) => obj(i.type)?.text === type)?.[key];

/** Task (claim status inquiry; focus the Claim, resolvable or by identifier) → 276. */
export function statusTaskTo276(task: Resource, lookup: Lookup): SetToWrite {
  const focus = obj(task.focus);
  const focusRef = str(focus?.reference);
  const claim = focusRef ? deref(lookup, focus, "Task.focus") : undefined;
  const p = people(lookup, task, "owner", "requester", "for", arr(claim?.insurance)[0]?.coverage ?? input(task, "coverage", "valueReference"));
  const [date, time] = dateTime(str(task.authoredOn));
  const trace = need(str(arr(task.identifier)[0]?.value), "Task.identifier");
  const pcn = need(str(arr(claim?.identifier)[0]?.value) ?? str(obj(focus?.identifier)?.value) ?? str(obj(input(task, "patient-control-number", "valueIdentifier"))?.value), "the claim's patient control number (Task.focus)");
  const detail: Segment[] = [segment("TRN", "1", trace)];
  const payerClaim = str(obj(input(task, "payer-claim-control-number", "valueIdentifier"))?.value);
  if (payerClaim) detail.push(segment("REF", "1K", payerClaim));
  detail.push(segment("REF", "EJ", pcn));
  const total = (obj(claim?.total)?.value ?? obj(input(task, "billed-amount", "valueMoney"))?.value) as number | undefined;
  if (total !== undefined) detail.push(segment("AMT", "T3", x12Amount(total)));
  const period = obj(claim?.billablePeriod) ?? obj(input(task, "service-period", "valuePeriod"));
  const start = x12Date(str(period?.start));
  if (start) detail.push(segment("DTP", "472", "RD8", `${start}-${x12Date(str(period?.end)) ?? start}`));
  const hl = hlCounter();
  const body: Segment[] = [segment("BHT", "0010", "13", trace, date, time)];
  const [a, aId] = hl(undefined, "20", true);
  body.push(a, nm1("PR", p.payer, "PI", need(payerIdOf(p.payer), "payer Organization.identifier (payer id)")));
  const [b, bId] = hl(aId, "21", true);
  // 2100B: the receiver the X12 → FHIR mapping names in the trace's system (urn:x12:trn:<NM109>), else the provider's NPI.
  body.push(b, nm1("41", p.provider, "46", traceSystemId(arr(task.identifier)[0]) ?? npiOf(p.provider)));
  const [c, cId] = hl(bId, "19", true);
  body.push(c, nm1("1P", p.provider, "XX", need(npiOf(p.provider), "Task.requester identifier (NPI)")));
  const [d, dId] = hl(cId, "22", p.dependent);
  body.push(d);
  if (!p.dependent) body.push(...dmg(p.subscriber), nm1("IL", p.subscriber, "MI", p.memberId), ...detail);
  else {
    body.push(nm1("IL", p.subscriber, "MI", p.memberId));
    const [e] = hl(dId, "23", false);
    body.push(e, ...need(dmg(p.patient)[0] && dmg(p.patient), "Patient.birthDate"), nm1("QC", p.patient, undefined, undefined), ...detail);
  }
  return { set: "276", version: "005010X212", body };
}

/** Claim (use preauthorization) → 278 request: one patient event, a service level per item. */
export function preauthTo278(claim: Resource, lookup: Lookup): SetToWrite {
  const p = people(lookup, claim, "insurer", "provider", "patient", arr(claim.insurance)[0]?.coverage);
  const [date, time] = dateTime(str(claim.created));
  const [trace, originator] = traceOf(arr(claim.identifier)[0], identifierValue(p.provider, SYSTEM.ein), "Claim.identifier");
  const items = arr(claim.item);
  need(items[0], "Claim.item");
  const category = code(items[0]!.category, SYSTEM.serviceType) ?? "1";
  const pos = code(items[0]!.locationCodeableConcept);
  const institutional = code(claim.type) === "institutional";
  const body: Segment[] = [segment("BHT", "0007", "13", trace, date, time)];
  const hl = hlCounter();
  const [a, aId] = hl(undefined, "20", true);
  body.push(a, nm1("X3", p.payer, "PI", need(payerIdOf(p.payer), "Claim.insurer identifier (payer id)")));
  const [b, bId] = hl(aId, "21", true);
  body.push(b, nm1("1P", p.provider, "XX", need(npiOf(p.provider), "Claim.provider identifier (NPI)")));
  const [c, cId] = hl(bId, "22", true);
  body.push(c, nm1("IL", p.subscriber, "MI", p.memberId), ...(p.dependent ? [] : dmg(p.subscriber)));
  let parent = cId;
  if (p.dependent) {
    const [d, dId] = hl(cId, "23", true);
    body.push(d, nm1("QC", p.patient, undefined, undefined), ...dmg(p.patient));
    parent = dId;
  }
  const [e, eId] = hl(parent, "EV", true);
  body.push(e, segment("TRN", "1", trace, originator), segment("UM", institutional ? "AR" : "HS", "I", category, pos ? composite(pos, institutional ? "A" : "B") : undefined));
  const period = obj(items[0]!.servicedPeriod);
  const start = x12Date(str(period?.start) ?? str(items[0]!.servicedDate));
  if (start) body.push(segment("DTP", institutional ? "435" : "472", institutional ? "D8" : "RD8", institutional ? start : `${start}-${x12Date(str(period?.end)) ?? start}`));
  const dx = arr(claim.diagnosis).map((d, i) => composite(i === 0 ? "ABK" : "ABF", icdToX12(need(code(d.diagnosisCodeableConcept), "Claim.diagnosis.diagnosisCodeableConcept"))));
  if (dx.length) body.push(segment("HI", ...dx.slice(0, 12)));
  // 2010EA: the event's providers (the care team; SJ servicing provider).
  for (const member of arr(claim.careTeam)) {
    const pr = deref(lookup, member.provider, "Claim.careTeam.provider");
    body.push(nm1("SJ", pr, "XX", need(npiOf(pr), "Claim.careTeam.provider identifier (NPI)")));
  }
  items.forEach((item, i) => {
    const coding = arr(obj(item.productOrService)?.coding)[0];
    if (!coding || coding.system === SYSTEM.serviceType) return;
    const [f] = hl(eId, "SS", false);
    const qty = obj(item.quantity)?.value as number | undefined;
    const net = obj(item.net)?.value as number | undefined;
    // The service's own trace number (PAS itemTraceNumber) when it has one.
    const own = obj(arr(item.extension).find((x) => x.url === EXTENSION.itemTraceNumber)?.valueIdentifier);
    const [serviceTrace, serviceOriginator] = own ? traceOf(own, undefined, "Claim.item.extension(itemTraceNumber)") : [`${trace}-${i + 1}`, originator];
    body.push(f, segment("TRN", "1", serviceTrace, serviceOriginator), segment("UM", institutional ? "AR" : "HS", "I", category));
    body.push(segment("SV1", composite(serviceQualifier(str(coding.system)), need(str(coding.code), "Claim.item.productOrService")), x12Amount(net), "UN", x12Amount(qty ?? 1)));
  });
  // The last HL of a branch has no children.
  const last = [...body].reverse().find((s) => s.id === "HL")!;
  last.elements[3] = "0";
  return { set: "278", version: "005010X217", body };
}
