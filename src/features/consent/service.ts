// Consent decisions over an organization's store: the patient's Consents (read through the
// FHIR port, so only this org's) decided with the org's default policy.
import type { OrgData } from "../../platform/org-data";
import type { FhirPort, Resource } from "../fhir";
import { type ConsentDecision, type ConsentRequest, decide } from "./decide";
import { type ConsentPolicy, readConsentPolicy } from "./policy-store";

/** Consents read per patient; a patient with more is refused rather than half-decided. */
export const MAX_CONSENTS_PER_PATIENT = 1000;

export interface ConsentDecider {
  policy(): Promise<ConsentPolicy>;
  decide(request: ConsentRequest): Promise<ConsentDecision>;
  /** "Patient/<id>" of the org's Patients carrying any of these identifier values (HL7 PID-3, MRNs). */
  patientsByIdentifier(values: string[]): Promise<string[]>;
}

const patientRef = (p: string) => (p.includes("/") ? p : `Patient/${p}`);

/** The patient's active Consents in the org's store. */
export async function activeConsents(fhir: FhirPort, patient: string): Promise<Resource[]> {
  const bundle = await fhir.search("Consent", `patient=${encodeURIComponent(patientRef(patient))}&status=active&_count=${MAX_CONSENTS_PER_PATIENT}`);
  return (bundle.entry ?? []).flatMap((e) => (e.resource && (e.search?.mode ?? "match") === "match" ? [e.resource] : []));
}

/** A decider for one org; the policy row is read once per decider (one execution, one request). */
export function consentDecider(data: OrgData, fhir: () => FhirPort): ConsentDecider {
  let policy: Promise<ConsentPolicy> | undefined;
  const policyOnce = () => {
    policy ??= readConsentPolicy(data);
    return policy;
  };
  return {
    policy: policyOnce,
    decide: async (request) => {
      const [consents, p] = await Promise.all([activeConsents(fhir(), request.patient), policyOnce()]);
      return decide(request, consents, p.defaultPolicy);
    },
    patientsByIdentifier: async (values) => {
      if (!values.length) return [];
      const query = `identifier=${values.map((v) => encodeURIComponent(v.replaceAll(",", "\\,"))).join(",")}&_count=100&_elements=id`;
      const bundle = await fhir().search("Patient", query);
      return (bundle.entry ?? []).flatMap((e) => (e.resource?.id ? [`Patient/${e.resource.id}`] : []));
    },
  };
}

/** Patients whose Consents one search reads (a comma-separated `patient` parameter). */
export const CONSENT_SEARCH_PATIENTS = 50;

/**
 * The active Consents of each patient ("Patient/<id>"), one search per CONSENT_SEARCH_PATIENTS
 * patients; a group holding more than one page of Consents is read patient by patient instead.
 */
export async function activeConsentsOf(fhir: FhirPort, patients: string[]): Promise<Map<string, Resource[]>> {
  const found = new Map<string, Resource[]>(patients.map((p) => [patientRef(p), []]));
  for (let i = 0; i < patients.length; i += CONSENT_SEARCH_PATIENTS) {
    const group = patients.slice(i, i + CONSENT_SEARCH_PATIENTS).map(patientRef);
    const bundle = await fhir.search("Consent", `patient=${group.map(encodeURIComponent).join(",")}&status=active&_count=${MAX_CONSENTS_PER_PATIENT}`);
    if (bundle.link?.some((l) => l.relation === "next")) {
      for (const p of group) found.set(p, await activeConsents(fhir, p));
      continue;
    }
    for (const e of bundle.entry ?? []) {
      const ref = (e.resource?.patient as { reference?: string } | undefined)?.reference;
      if (e.resource && ref && (e.search?.mode ?? "match") === "match") found.get(ref)?.push(e.resource);
    }
  }
  return found;
}
