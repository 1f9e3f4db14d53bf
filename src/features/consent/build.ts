// Builds a FHIR R4 Consent from the form-like JSON the consent capture node accepts (or passes
// a Consent resource through). Codes come from the R4 value sets: consentscope, consentaction,
// v3-ActReason (purposes), v3-ParticipationType (actor roles), v3-ActCode (OPTIN/OPTOUT rules).
import { z } from "zod";
import type { Resource } from "../fhir";
import { CONSENT_ACTIONS } from "./decide";

const REF = z.string().regex(/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/, "a reference Type/id");
const CodingForm = z.object({ system: z.string().min(1).optional(), code: z.string().min(1), display: z.string().optional() }).strict();
const PeriodForm = z.object({ start: z.string().optional(), end: z.string().optional() }).strict();

export interface ProvisionForm {
  type?: "permit" | "deny";
  period?: z.infer<typeof PeriodForm>;
  actors?: { reference: string; role?: string }[];
  actions?: (typeof CONSENT_ACTIONS)[number][];
  purposes?: string[];
  resource_types?: string[];
  codes?: z.infer<typeof CodingForm>[];
  security_labels?: z.infer<typeof CodingForm>[];
  data?: { reference: string; meaning?: "instance" | "related" | "dependents" | "authoredby" }[];
  provisions?: ProvisionForm[];
}

export const ProvisionFormSchema: z.ZodType<ProvisionForm> = z.lazy(() =>
  z
    .object({
      type: z.enum(["permit", "deny"]).optional(),
      period: PeriodForm.optional(),
      actors: z.array(z.object({ reference: REF, role: z.string().min(1).optional() }).strict()).optional(),
      actions: z.array(z.enum(CONSENT_ACTIONS)).optional(),
      purposes: z.array(z.string().min(1)).optional(),
      resource_types: z.array(z.string().regex(/^[A-Z][A-Za-z]+$/)).optional(),
      codes: z.array(CodingForm).optional(),
      security_labels: z.array(CodingForm).optional(),
      data: z.array(z.object({ reference: REF, meaning: z.enum(["instance", "related", "dependents", "authoredby"]).default("instance") }).strict()).optional(),
      provisions: z.array(ProvisionFormSchema).max(50).optional(),
    })
    .strict(),
);

export const ConsentFormSchema = z
  .object({
    patient: z.string().min(1),
    status: z.enum(["draft", "proposed", "active", "rejected", "inactive", "entered-in-error"]).default("active"),
    scope: z.enum(["patient-privacy", "research", "treatment", "adr"]).default("patient-privacy"),
    categories: z.array(CodingForm).optional(),
    date_time: z.string().optional(),
    performers: z.array(REF).optional(),
    organizations: z.array(REF).optional(),
    policy_rule: z.string().min(1).optional().describe("v3-ActCode, e.g. OPTIN, OPTOUT; default from the root provision's type"),
    policy: z.array(z.object({ authority: z.string().optional(), uri: z.string().optional() }).strict()).optional(),
    identifier: z.array(z.object({ system: z.string().optional(), value: z.string() }).strict()).optional(),
    provision: ProvisionFormSchema.default({ type: "permit" }),
  })
  .strict();
export type ConsentForm = z.input<typeof ConsentFormSchema>;

const SYS = {
  scope: "http://terminology.hl7.org/CodeSystem/consentscope",
  action: "http://terminology.hl7.org/CodeSystem/consentaction",
  purpose: "http://terminology.hl7.org/CodeSystem/v3-ActReason",
  role: "http://terminology.hl7.org/CodeSystem/v3-ParticipationType",
  rule: "http://terminology.hl7.org/CodeSystem/v3-ActCode",
  types: "http://hl7.org/fhir/resource-types",
  loinc: "http://loinc.org",
};

const ref = (reference: string) => ({ reference });

function provision(p: ProvisionForm): Record<string, unknown> {
  return {
    ...(p.type ? { type: p.type } : {}),
    ...(p.period ? { period: p.period } : {}),
    // R4 requires a role per actor; the recipient of information (IRCP) unless said.
    ...(p.actors?.length ? { actor: p.actors.map((a) => ({ role: { coding: [{ system: SYS.role, code: a.role ?? "IRCP" }] }, reference: ref(a.reference) })) } : {}),
    ...(p.actions?.length ? { action: p.actions.map((code) => ({ coding: [{ system: SYS.action, code }] })) } : {}),
    ...(p.security_labels?.length ? { securityLabel: p.security_labels } : {}),
    ...(p.purposes?.length ? { purpose: p.purposes.map((code) => ({ system: SYS.purpose, code })) } : {}),
    ...(p.resource_types?.length ? { class: p.resource_types.map((code) => ({ system: SYS.types, code })) } : {}),
    ...(p.codes?.length ? { code: p.codes.map((c) => ({ coding: [c] })) } : {}),
    ...(p.data?.length ? { data: p.data.map((d) => ({ meaning: d.meaning ?? "instance", reference: ref(d.reference) })) } : {}),
    ...(p.provisions?.length ? { provision: p.provisions.map(provision) } : {}),
  };
}

/** The Consent a form describes. */
export function buildConsent(input: ConsentForm, now = new Date().toISOString()): Resource {
  const form = ConsentFormSchema.parse(input);
  const rule = form.policy_rule ?? (form.provision.type === "deny" ? "OPTOUT" : "OPTIN");
  return {
    resourceType: "Consent",
    ...(form.identifier ? { identifier: form.identifier } : {}),
    status: form.status,
    scope: { coding: [{ system: SYS.scope, code: form.scope }] },
    // LOINC 59284-0 "Patient Consent" (the R4 examples' category) unless given.
    category: (form.categories ?? [{ system: SYS.loinc, code: "59284-0" }]).map((c) => ({ coding: [c] })),
    patient: ref(form.patient.includes("/") ? form.patient : `Patient/${form.patient}`),
    dateTime: form.date_time ?? now,
    ...(form.performers ? { performer: form.performers.map(ref) } : {}),
    ...(form.organizations ? { organization: form.organizations.map(ref) } : {}),
    ...(form.policy ? { policy: form.policy } : {}),
    policyRule: { coding: [{ system: SYS.rule, code: rule }] },
    provision: provision(form.provision),
  };
}
