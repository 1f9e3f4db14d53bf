// 837P / 837I → Claim (type professional / institutional, use claim) per CLM, with the
// Patient, Coverage, payer and billing Organization, rendering/attending Practitioner
// and an Encounter for the visit.

import type { Resource } from "../../../platform/fhir-resource";
import type { LoopNode } from "../loops";
import { comp, components, el } from "../model";
import { descendants, head, loop1, loops, seg1 } from "../query";
import { CL1_INFO, DIAGNOSIS_QUALIFIERS, EXTENSION, icdFromX12, RELATIONSHIP, SYSTEM } from "./codes";
import type { FhirOutput, Ref } from "./context";
import { coverage, needLoop, nm1Identifier, party, person } from "./parties";
import { diagnoses, serviceCode } from "./service-codes";
import { amount, clean, dtpDate, dtpPeriod, money, period, val } from "./values";

/** Care team loops of the claim (2310x) and their role. */
const CARE_TEAM: Readonly<Record<string, string>> = { "82": "primary", "71": "primary", "72": "assist", ZZ: "assist", DQ: "supervisor", DN: "other", P3: "other" };

function diagnosisList(claim: LoopNode) {
  return diagnoses(claim).map((d, i) => {
    const q = DIAGNOSIS_QUALIFIERS[d.qualifier]!;
    return { sequence: i + 1, diagnosisCodeableConcept: { coding: [{ system: q.system, code: icdFromX12(d.code) }] }, type: [{ coding: [{ system: SYSTEM.diagnosisType, code: q.type }] }] };
  });
}

function item(line: LoopNode, institutional: boolean, pos: string | undefined, encounter: Ref): Record<string, unknown> {
  const sequence = Number(el(head(line), 1)) || 1;
  const date = dtpDate(seg1(line, "DTP", ["472"]));
  const period = dtpPeriod(seg1(line, "DTP", ["472"]));
  const encounterRef = [{ reference: encounter.reference }];
  if (institutional) {
    const sv2 = seg1(line, "SV2")!;
    const procedure = el(sv2, 2) ? serviceCode(el(sv2, 2)) : { productOrService: { coding: [{ system: SYSTEM.revenue, code: el(sv2, 1) }] } };
    return clean({
      sequence,
      revenue: { coding: [{ system: SYSTEM.revenue, code: el(sv2, 1) }] },
      ...procedure,
      servicedDate: period && period.start !== period.end ? undefined : date,
      servicedPeriod: period && period.start !== period.end ? period : undefined,
      quantity: amount(el(sv2, 5)) !== undefined ? { value: amount(el(sv2, 5)), unit: el(sv2, 4) || undefined } : undefined,
      net: money(el(sv2, 3)),
      encounter: encounterRef,
    });
  }
  const sv1 = seg1(line, "SV1")!;
  const pointers = components(el(sv1, 7)).map(Number).filter((n) => n > 0);
  return clean({
    sequence,
    diagnosisSequence: pointers.length ? pointers : undefined,
    ...serviceCode(el(sv1, 1)),
    servicedDate: date,
    locationCodeableConcept: el(sv1, 5) || pos ? { coding: [{ system: SYSTEM.placeOfService, code: el(sv1, 5) || pos }] } : undefined,
    quantity: amount(el(sv1, 4)) !== undefined ? { value: amount(el(sv1, 4)), unit: el(sv1, 3) || undefined } : undefined,
    unitPrice: money(el(sv1, 2)) && amount(el(sv1, 4)) ? money(String((amount(el(sv1, 2))! / amount(el(sv1, 4))!).toFixed(2))) : undefined,
    net: money(el(sv1, 2)),
    encounter: encounterRef,
  });
}

/** The service period of a claim: 837I statement dates (DTP*434), else the span of its line dates. */
function claimPeriod(claim: LoopNode): { start?: string; end?: string } | undefined {
  const statement = dtpPeriod(seg1(claim, "DTP", ["434"]));
  if (statement) return statement;
  const dates = descendants(claim, "2400")
    .map((l) => dtpPeriod(seg1(l, "DTP", ["472"])))
    .filter((p) => p !== undefined)
    .flatMap((p) => [p.start, p.end])
    .filter((d): d is string => !!d)
    .sort();
  return dates.length ? { start: dates[0], end: dates[dates.length - 1] } : undefined;
}

export interface ClaimContext {
  out: FhirOutput;
  institutional: boolean;
  created: string;
  billing: Ref;
  billingNpi: string;
  /** PRV*BI of 2000A. */
  billingTaxonomy?: string;
  payer: Ref;
  payerId: string;
  patient: Ref;
  coverage: Ref;
}

async function claimResources(c: ClaimContext, claim: LoopNode): Promise<void> {
  const clm = head(claim)!;
  const { out } = c;
  const pcn = el(clm, 1);
  const facility = comp(clm, 5, 1);
  const billPeriod = claimPeriod(claim);
  const key = `claim|${pcn}`;
  const encounter = out.add(
    clean({
      resourceType: "Encounter",
      identifier: [{ system: out.system("patient-control-number", c.billingNpi), value: pcn }],
      status: "finished",
      // Type of bill: the second digit is the bill classification, 1 = inpatient.
      class: { system: SYSTEM.actCode, code: c.institutional && facility[1] === "1" ? "IMP" : "AMB" },
      subject: c.patient,
      period: billPeriod,
      serviceProvider: c.billing,
    }),
    `${key}|encounter`,
    { system: out.system("patient-control-number", c.billingNpi), value: pcn },
  );
  const careTeam: Record<string, unknown>[] = [];
  for (const l of loops(claim, "2310A", "2310B", "2310C", "2310D", "2310F")) {
    const role = CARE_TEAM[el(head(l), 1)];
    if (!role) continue;
    const provider = await party(out, l, { key, type: el(head(l), 2) === "1" ? "Practitioner" : "Organization" });
    careTeam.push(clean({ sequence: careTeam.length + 1, provider, role: { coding: [{ system: SYSTEM.careTeamRole, code: role }] }, qualification: seg1(l, "PRV") ? { coding: [{ system: SYSTEM.taxonomy, code: el(seg1(l, "PRV"), 3) }] } : undefined }));
  }
  const admission = seg1(claim, "DTP", ["435"]);
  const cl1 = seg1(claim, "CL1");
  const supportingInfo: Record<string, unknown>[] = [];
  const category = (code: string, text: string) => ({ coding: [{ system: SYSTEM.claimInformation, code }], text });
  if (admission) supportingInfo.push({ sequence: supportingInfo.length + 1, category: category("info", "admission"), timingDate: period(el(admission, 2), el(admission, 3))?.start });
  // CL1: admission type, admission source (point of origin), patient status.
  for (const info of CL1_INFO) if (el(cl1, info.element)) supportingInfo.push({ sequence: supportingInfo.length + 1, category: category(info.category, info.text), code: { coding: [{ system: info.system, code: el(cl1, info.element) }] } });
  const items = descendants(claim, "2400").map((l) => item(l, c.institutional, facility || undefined, encounter));
  const claimResource: Resource = clean({
    resourceType: "Claim",
    identifier: [{ system: out.system("patient-control-number", c.billingNpi), value: pcn }],
    status: "active",
    type: { coding: [{ system: SYSTEM.claimType, code: c.institutional ? "institutional" : "professional" }] },
    subType: c.institutional && facility ? { coding: [{ system: SYSTEM.typeOfBill, code: `0${facility}${comp(clm, 5, 3)}` }] } : undefined,
    use: "claim",
    patient: c.patient,
    billablePeriod: billPeriod,
    created: c.created,
    insurer: c.payer,
    // PRV*BI: the billing provider's taxonomy (Da Vinci PCT's providerTaxonomy on the reference).
    provider: c.billingTaxonomy ? { ...c.billing, extension: [{ url: EXTENSION.providerTaxonomy, valueCodeableConcept: { coding: [{ system: SYSTEM.taxonomy, code: c.billingTaxonomy }] } }] } : c.billing,
    priority: { coding: [{ system: SYSTEM.processPriority, code: "normal" }] },
    careTeam: careTeam.length ? careTeam : undefined,
    supportingInfo: supportingInfo.length ? supportingInfo : undefined,
    diagnosis: diagnosisList(claim),
    insurance: [{ sequence: 1, focal: true, coverage: c.coverage }],
    item: items,
    total: money(el(clm, 2)),
  });
  out.add(claimResource, key, { system: out.system("patient-control-number", c.billingNpi), value: pcn });
}

/** All resources of an 837P or 837I set, into `out`. */
export async function map837(out: FhirOutput, root: LoopNode, institutional: boolean, created: string): Promise<void> {
  for (const provider of loops(root, "2000A")) {
    const billingLoop = needLoop(loop1(provider, "2010AA"), "2010AA", "billing provider");
    const billingNpi = el(head(billingLoop), 9);
    const billing = await party(out, billingLoop, { key: "billing", type: el(head(billingLoop), 2) === "1" ? "Practitioner" : "Organization" });
    for (const sub of loops(provider, "2000B")) {
      const sbr = seg1(sub, "SBR")!;
      const payerLoop = needLoop(loop1(sub, "2010BB"), "2010BB", "payer");
      const payerId = el(head(payerLoop), 9);
      const payer = await party(out, payerLoop, { key: "payer", type: "Organization" });
      const subscriberLoop = needLoop(loop1(sub, "2010BA"), "2010BA", "subscriber");
      const memberId = nm1Identifier(out, head(subscriberLoop), payerId)?.value;
      const subscriber = await person(out, subscriberLoop, { key: "subscriber", payerId, memberId });
      const relationship = RELATIONSHIP[el(sbr, 2)] ?? (loops(sub, "2000C").length ? undefined : "self");
      const base = { out, institutional, created, billing, billingNpi, billingTaxonomy: val(seg1(provider, "PRV", ["BI"]), 3), payer, payerId };
      const ownClaims = loops(sub, "2300");
      if (ownClaims.length) {
        const cov = await coverage(out, { memberId, payerId, beneficiary: subscriber, subscriber: subscriber.ref, payor: payer, relationship: relationship ?? "self", group: val(sbr, 3), filing: val(sbr, 9), key: "coverage" });
        for (const claim of ownClaims) await claimResources({ ...base, patient: subscriber.ref, coverage: cov }, claim);
      }
      for (const dep of loops(sub, "2000C")) {
        const pat = seg1(dep, "PAT");
        const patient = await person(out, needLoop(loop1(dep, "2010CA"), "2010CA", "patient"), { key: `patient|${el(head(dep), 1)}`, payerId, memberId, dependent: true });
        const cov = await coverage(out, { memberId, payerId, beneficiary: patient, subscriber: subscriber.ref, payor: payer, relationship: RELATIONSHIP[el(pat, 1)] ?? "other", group: val(sbr, 3), filing: val(sbr, 9), key: `coverage|${el(head(dep), 1)}` });
        for (const claim of loops(dep, "2300")) await claimResources({ ...base, patient: patient.ref, coverage: cov }, claim);
      }
    }
  }
}
