// PaymentReconciliation (with the ExplanationOfBenefits its details answer with) → 835: the
// payment (BPR, TRN, DTM*405), payer and payee (1000A/B), a CLP per EOB with its patient,
// insured, claim-level CAS and service lines, and a PLB per adjustment detail.

import type { Resource } from "../../../platform/fhir-resource";
import type { SetToWrite } from "../build";
import { composite, segment, type Segment } from "../model";
import { CLP_STATUS, SYSTEM, serviceQualifier } from "./codes";
import { addressSegments, arr, code, deref, identifierValue, type Json, type Lookup, memberIdOf, need, npiOf, obj, payerIdOf, str, traceSystemId } from "./from-fhir";
import { x12Amount, x12Date } from "./values";

const STATUS_BACK: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(CLP_STATUS).map(([k, v]) => [v, k]));
const money = (v: unknown) => x12Amount(obj(v)?.value as number | undefined);
const adjudicated = (list: unknown, category: string) => money(arr(list).find((a) => code(a.category, SYSTEM.adjudication) === category)?.amount);

/** CAS segments from adjudications whose category is an adjustment group (CO, PR, OA, PI): six triplets each. */
function casSegments(list: unknown): Segment[] {
  const groups = new Map<string, string[]>();
  for (const a of arr(list)) {
    const group = code(a.category, SYSTEM.adjustmentGroup);
    if (!group) continue;
    const triplets = groups.get(group) ?? [];
    triplets.push(need(code(a.reason, SYSTEM.adjustmentReason), "adjudication.reason"), money(a.amount) ?? "0", a.value === undefined ? "" : String(a.value));
    groups.set(group, triplets);
  }
  const out: Segment[] = [];
  for (const [group, t] of groups) for (let i = 0; i < t.length; i += 18) out.push(segment("CAS", group, ...t.slice(i, i + 18)));
  return out;
}

/** NM1 of a person in the 835 (no address, no demographics). */
function person835(entity: string, p: Json, memberId: string | undefined): Segment {
  const name = arr(p.name)[0] ?? {};
  const given = (Array.isArray(name.given) ? name.given : []) as string[];
  return segment("NM1", entity, "1", need(str(name.family), "Patient.name.family"), given[0], given[1], undefined, undefined, memberId ? "MI" : undefined, memberId);
}

function claimSegments(eob: Json, lookup: Lookup): Segment[] {
  const ids = arr(eob.identifier);
  const pcn = need(str(ids.find((i) => str(i.system)?.includes("patient-control-number"))?.value), "ExplanationOfBenefit.identifier (patient control number)");
  const payerClaim = str(ids.find((i) => str(i.system)?.includes("payer-claim-control-number"))?.value);
  const coverage = deref(lookup, arr(eob.insurance)[0]?.coverage, "ExplanationOfBenefit.insurance.coverage");
  const patient = deref(lookup, eob.patient, "ExplanationOfBenefit.patient");
  const subscriberRef = str(obj(coverage.subscriber)?.reference);
  const subscriber = subscriberRef && subscriberRef !== str(obj(eob.patient)?.reference) ? lookup(subscriberRef) : undefined;
  const memberId = str(coverage.subscriberId) ?? memberIdOf(coverage);
  const out: Segment[] = [
    segment("CLP", pcn, need(STATUS_BACK[str(eob.disposition) ?? ""], "ExplanationOfBenefit.disposition (a CLP02 status)"), need(adjudicated(eob.total, "submitted"), "ExplanationOfBenefit.total (submitted)"), adjudicated(eob.total, "benefit") ?? "0", "", need(code(coverage.type, SYSTEM.claimFilingIndicator), "Coverage.type (claim filing indicator)"), payerClaim),
    ...casSegments(eob.adjudication),
    // The patient carries the member id only when no insured follows (a dependent's is the subscriber's).
    person835("QC", patient, subscriber ? undefined : memberId),
    ...(subscriber ? [person835("IL", subscriber, memberId)] : []),
  ];
  const period = obj(eob.billablePeriod);
  if (period?.start) out.push(segment("DTM", "232", x12Date(str(period.start))), segment("DTM", "233", x12Date(str(period.end) ?? str(period.start))));
  for (const item of arr(eob.item)) {
    const coding = arr(obj(item.productOrService)?.coding)[0];
    const mods = arr(item.modifier).map((m) => code(m) ?? "");
    const qty = obj(item.quantity)?.value as number | undefined;
    out.push(segment("SVC", composite(serviceQualifier(str(coding?.system)), need(str(coding?.code), "ExplanationOfBenefit.item.productOrService"), ...mods.slice(0, 4)), need(adjudicated(item.adjudication, "submitted"), "ExplanationOfBenefit.item.adjudication (submitted)"), adjudicated(item.adjudication, "benefit") ?? "0", "", x12Amount(qty)));
    if (str(item.servicedDate)) out.push(segment("DTM", "472", x12Date(str(item.servicedDate))));
    out.push(...casSegments(item.adjudication));
    const allowed = adjudicated(item.adjudication, "eligible");
    if (allowed) out.push(segment("AMT", "B6", allowed));
  }
  return out;
}

/** PaymentReconciliation → 835; the EOBs, payer, payee and coverages come from `lookup`. */
export function paymentTo835(payment: Resource, lookup: Lookup): SetToWrite {
  const payer = deref(lookup, payment.paymentIssuer, "PaymentReconciliation.paymentIssuer");
  const payee = deref(lookup, payment.requestor, "PaymentReconciliation.requestor");
  const id = arr(payment.identifier)[0];
  const trace = need(str(obj(payment.paymentIdentifier)?.value) ?? str(id?.value), "PaymentReconciliation.paymentIdentifier");
  const amount = x12Amount((obj(payment.paymentAmount)?.value as number | undefined) ?? 0);
  const notification = payment.disposition === "Notification only, no payment";
  const body: Segment[] = [
    segment("BPR", notification ? "H" : "I", amount, "C", notification ? "NON" : "ACH", ...Array(11).fill(""), need(x12Date(str(payment.paymentDate)), "PaymentReconciliation.paymentDate")),
    segment("TRN", "1", trace, need(traceSystemId(id) ?? payerIdOf(payer), "PaymentReconciliation.identifier system (urn:x12:trn:<TRN03>)")),
    segment("DTM", "405", x12Date(str(payment.created))),
    segment("N1", "PR", need(str(payer.name), "payer Organization.name"), ...(payerIdOf(payer) && payerIdOf(payer) !== traceSystemId(id) ? ["XV", payerIdOf(payer)] : [])),
    ...addressSegments(payer),
    segment("N1", "PE", need(str(payee.name), "payee Organization.name"), "XX", need(npiOf(payee), "payee identifier (NPI)")),
    ...addressSegments(payee),
    ...(identifierValue(payee, SYSTEM.ein) ? [segment("REF", "TJ", identifierValue(payee, SYSTEM.ein))] : []),
  ];
  const details = arr(payment.detail);
  const claims = details.filter((d) => code(d.type, SYSTEM.paymentType) === "payment" && obj(d.response));
  if (claims.length) body.push(segment("LX", 1));
  for (const d of claims) body.push(...claimSegments(deref(lookup, d.response, "PaymentReconciliation.detail.response"), lookup));
  const adjustments = details.filter((d) => code(d.type, SYSTEM.paymentType) === "adjustment");
  const pairs = adjustments.map((d) => [composite(need(str(obj(d.type)?.text), "PaymentReconciliation.detail.type.text (PLB reason)"), str(obj(d.identifier)?.value)), x12Amount(-((obj(d.amount)?.value as number | undefined) ?? 0))!]);
  const date = x12Date(str(adjustments[0]?.date)) ?? x12Date(str(payment.paymentDate));
  for (let i = 0; i < pairs.length; i += 6) body.push(segment("PLB", npiOf(payee), date, ...pairs.slice(i, i + 6).flat()));
  return { set: "835", version: "005010X221A1", st03: false, body };
}
