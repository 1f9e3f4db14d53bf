// Consent decisions over an organization's store: the patient's Consents (read through the
// FHIR port, so only this org's) decided with the org's default policy.
import type { OrgData } from "../../platform/org-data";
import type { FhirPort, Resource } from "../fhir/port";
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
