// Claim (professional / institutional) → 837P / 837I body, with the billing provider,
// subscriber, patient and payer written from the resources the Claim references.

import type { Resource } from "../../../platform/fhir-resource";
import { composite, segment, type Segment } from "../model";
import type { SetToWrite } from "../build";
import { CL1_INFO, diagnosisQualifier, EXTENSION, icdToX12, RELATIONSHIP_BACK, SYSTEM, serviceQualifier } from "./codes";
import { X12Error } from "../errors";
import { addressSegments, arr, code, dateTime, deref, dmg, hlCounter, identifierValue, type Json, type Lookup, memberIdOf, need, nm1, npiOf, obj, payerIdOf, str } from "./from-fhir";
import { x12Amount, x12Date } from "./values";

export interface Party {
  name: string;
  /** ETIN or other id (NM109 with qualifier 46). */
  id: string;
}

export interface Envelope837 {
  submitter: Party & { contactName: string; phone?: string; email?: string };
  receiver: Party;
}

/** HI qualifiers per segment of the 837I, in TR3 order, with how many codes one segment holds and how many segments. */
const INSTITUTIONAL_HI: readonly { type: string; perSegment: number; segments: number }[] = [
  { type: "principal", perSegment: 1, segments: 1 },
  { type: "admitting", perSegment: 1, segments: 1 },
  { type: "patientreasonforvisit", perSegment: 3, segments: 1 },
  { type: "externalcauseofinjury", perSegment: 12, segments: 1 },
  { type: "other", perSegment: 12, segments: 2 },
];

/**
 * HI segments from Claim.diagnosis by type: the 837P has the principal (ABK) and others (ABF);
 * the 837I has a segment per kind: principal, admitting (ABJ), reason for visit (APR),
 * external cause (ABN), others. A diagnosis the set has no room for is an error, not dropped.
 */
function hiSegments(claim: Json, institutional: boolean): Segment[] {
  const dx = arr(claim.diagnosis).sort((a, b) => Number(a.sequence) - Number(b.sequence));
  const codes = dx.map((d) => {
    const coding = arr(obj(d.diagnosisCodeableConcept)?.coding)[0];
    return { code: icdToX12(need(str(coding?.code), "Claim.diagnosis.diagnosisCodeableConcept")), system: str(coding?.system), type: code(arr(d.type)[0]) ?? "other" };
  });
  const principal = codes.find((c) => c.type === "principal") ?? codes[0];
  if (!principal) return [];
  const kinds = institutional ? INSTITUTIONAL_HI : [{ type: "principal", perSegment: 1, segments: 1 }, { type: "other", perSegment: 11, segments: 1 }];
  const known = new Set(kinds.map((k) => k.type));
  // The 837P's first HI holds the principal and eleven others.
  const kindOf = (c: (typeof codes)[number]) => (c === principal ? "principal" : known.has(c.type) && c.type !== "principal" ? c.type : "other");
  const out: Segment[] = [];
  for (const kind of kinds) {
    const these = codes.filter((c) => kindOf(c) === kind.type).map((c) => composite(diagnosisQualifier(kind.type, c.system), c.code));
    if (these.length > kind.perSegment * kind.segments) throw new X12Error("BAD_BUILD_INPUT", `Claim.diagnosis has ${these.length} of type ${kind.type}; the ${institutional ? "837I" : "837P"} holds at most ${kind.perSegment * kind.segments}`);
    for (let i = 0; i < these.length; i += kind.perSegment) out.push(segment("HI", ...these.slice(i, i + kind.perSegment)));
  }
  if (!institutional && out.length > 1) out.splice(0, 2, segment("HI", ...out[0]!.elements, ...out[1]!.elements));
  return out;
}

function procedure(item: Json): string {
  const coding = arr(obj(item.productOrService)?.coding)[0];
  const mods = arr(item.modifier).map((m) => code(m) ?? "");
  return composite(serviceQualifier(str(coding?.system)), need(str(coding?.code), "Claim.item.productOrService"), ...mods.slice(0, 4));
}

function lineSegments(item: Json, n: number, institutional: boolean): Segment[] {
  const out: Segment[] = [segment("LX", n)];
  const qty = obj(item.quantity);
  const charge = x12Amount(need(obj(item.net)?.value as number | undefined, "Claim.item.net"));
  if (institutional) {
    const revenue = need(code(item.revenue), "Claim.item.revenue");
    const proc = code(item.productOrService, SYSTEM.revenue) ? undefined : procedure(item);
    out.push(segment("SV2", revenue, proc, charge, str(qty?.unit) ?? "UN", x12Amount((qty?.value as number | undefined) ?? 1)));
  } else {
    const pointers = (Array.isArray(item.diagnosisSequence) ? item.diagnosisSequence : [1]) as number[];
    out.push(segment("SV1", procedure(item), charge, str(qty?.unit) ?? "UN", x12Amount((qty?.value as number | undefined) ?? 1), code(item.locationCodeableConcept), "", composite(...pointers.slice(0, 4).map(String))));
  }
  const serviced = str(item.servicedDate) ?? str(obj(item.servicedPeriod)?.start);
  const end = str(obj(item.servicedPeriod)?.end);
  if (serviced) out.push(end && end !== serviced ? segment("DTP", "472", "RD8", `${x12Date(serviced)}-${x12Date(end)}`) : segment("DTP", "472", "D8", x12Date(serviced)));
  return out;
}

/** The 837P or 837I body for a Claim; referenced resources come from `lookup`. */
export function claimTo837(claim: Resource, lookup: Lookup, env: Envelope837): SetToWrite {
  const institutional = code(claim.type) === "institutional";
  const provider = deref(lookup, claim.provider, "Claim.provider");
  const payer = deref(lookup, claim.insurer, "Claim.insurer");
  const patient = deref(lookup, claim.patient, "Claim.patient");
  const coverage = deref(lookup, arr(claim.insurance).find((i) => i.focal)?.coverage ?? arr(claim.insurance)[0]?.coverage, "Claim.insurance.coverage");
  const subscriberRef = str(obj(coverage.subscriber)?.reference);
  const subscriber = (subscriberRef ? lookup(subscriberRef) : undefined) ?? patient;
  const relationship = code(coverage.relationship) ?? (subscriber === patient ? "self" : "other");
  const isSelf = subscriber === patient || relationship === "self";
  const [date, time] = dateTime(str(claim.created));
  const pcn = need(str(arr(claim.identifier)[0]?.value), "Claim.identifier");
  const payerId = need(payerIdOf(payer), "payer Organization.identifier (payer id)");
  const memberId = need(str(coverage.subscriberId) ?? memberIdOf(coverage) ?? memberIdOf(subscriber), "Coverage.subscriberId");
  const hl = hlCounter();
  const body: Segment[] = [
    segment("BHT", "0019", "00", pcn, date, time, "CH"),
    segment("NM1", "41", "2", env.submitter.name, "", "", "", "", "46", env.submitter.id),
    segment("PER", "IC", env.submitter.contactName, env.submitter.phone ? "TE" : env.submitter.email ? "EM" : undefined, env.submitter.phone ?? env.submitter.email),
    segment("NM1", "40", "2", env.receiver.name, "", "", "", "", "46", env.receiver.id),
  ];
  const [hl1, billingHl] = hl(undefined, "20", true);
  const taxonomy = code(arr(obj(claim.provider)?.extension).find((x) => x.url === EXTENSION.providerTaxonomy)?.valueCodeableConcept);
  body.push(hl1, ...(taxonomy ? [segment("PRV", "BI", "PXC", taxonomy)] : []), nm1("85", provider, "XX", need(npiOf(provider), "Claim.provider identifier (NPI)")), ...addressSegments(provider));
  body.push(segment("REF", "EI", need(identifierValue(provider, SYSTEM.ein), "Claim.provider identifier (EIN)")));
  const [hl2, subHl] = hl(billingHl, "22", !isSelf);
  const filing = code(coverage.type, SYSTEM.claimFilingIndicator) ?? "CI";
  const group = str(arr(coverage.class)[0]?.value);
  body.push(hl2, segment("SBR", "P", isSelf ? "18" : "", group, "", "", "", "", "", filing));
  body.push(nm1("IL", subscriber, "MI", memberId), ...(isSelf ? [...addressSegments(subscriber), ...dmg(subscriber)] : []));
  body.push(nm1("PR", payer, "PI", payerId));
  if (!isSelf) {
    const [hl3] = hl(subHl, "23", false);
    body.push(hl3, segment("PAT", RELATIONSHIP_BACK[relationship] ?? "G8"), nm1("QC", patient, undefined, undefined), ...addressSegments(patient), ...need(dmg(patient)[0] && dmg(patient), "Patient.birthDate"));
  }
  const total = x12Amount(need(obj(claim.total)?.value as number | undefined, "Claim.total"));
  const pos = code(arr(claim.item)[0]?.locationCodeableConcept) ?? "11";
  if (institutional) {
    const bill = code(claim.subType, SYSTEM.typeOfBill) ?? "0111";
    body.push(segment("CLM", pcn, total, "", "", composite(bill.slice(1, 3), "A", bill.slice(3, 4) || "1"), "", "A", "Y", "Y"));
    const period = obj(claim.billablePeriod);
    body.push(segment("DTP", "434", "RD8", `${x12Date(need(str(period?.start), "Claim.billablePeriod.start"))}-${x12Date(str(period?.end) ?? str(period?.start))}`));
    const info = arr(claim.supportingInfo);
    const admitted = x12Date(str(info.find((i) => obj(i.category)?.text === "admission")?.timingDate));
    if (admitted) body.push(segment("DTP", "435", "D8", admitted));
    // CL1: admission type and source, patient status (required: no guess).
    const [type, source, status] = CL1_INFO.map((c) => info.map((i) => code(i.code, c.system)).find(Boolean));
    body.push(segment("CL1", type, source, need(status, "Claim.supportingInfo (patient status, CL103)")));
  } else {
    body.push(segment("CLM", pcn, total, "", "", composite(pos, "B", "1"), "Y", "A", "Y", "Y"));
  }
  body.push(...hiSegments(claim, institutional));
  const team = arr(claim.careTeam).find((t) => code(t.role) === "primary") ?? arr(claim.careTeam)[0];
  if (team) {
    const pr = deref(lookup, team.provider, "Claim.careTeam.provider");
    body.push(nm1(institutional ? "71" : "82", pr, "XX", npiOf(pr)));
    const taxonomy = code(team.qualification);
    if (taxonomy) body.push(segment("PRV", institutional ? "AT" : "PE", "PXC", taxonomy));
  }
  const items = arr(claim.item);
  need(items[0], "Claim.item");
  items.forEach((item, i) => {
    body.push(...lineSegments(item, i + 1, institutional));
  });
  return { set: "837", version: institutional ? "005010X223A2" : "005010X222A1", body };
}
