// Consent enforcement before data leaves the service. Every outbound node (HTTP, EHR write-back,
// HL7 send, later MHD publish and exports to external systems) takes the same optional `consent`
// config and calls checkOutboundConsent before sending: when the node says "always", or "inherit"
// and the organization enforces outbound consent, each patient the payload is about must be
// permitted to be disclosed to the node's actors for its purposes. The decisions are the consent
// feature's (features/consent/decide.ts); the gate lives with the nodes that call it, so pipelines
// depend on consent and not the other way round (consent's own nodes build on pipelines).
import { z } from "zod";
import { evaluate, jsonataExpression } from "./expression";
import { patientsOf } from "../../fhir";
import type { Resource } from "../../fhir";
import type { ConsentAction, ConsentDecision, ConsentRequest } from "../../consent";
import type { ConsentDecider } from "../../consent";

const ACT_REASON = "http://terminology.hl7.org/CodeSystem/v3-ActReason";

export const OutboundConsentConfig = z
  .object({
    check: z.enum(["inherit", "always", "never"]).default("inherit").describe("inherit: check when the organization's consent policy enforces outbound consent"),
    actors: z.array(z.string().regex(/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/)).max(20).default([]).describe("References of the recipient (Organization/x, Practitioner/y)"),
    purposes: z.array(z.string().min(1).max(64)).max(10).default([]).describe("Purpose-of-use codes (v3 ActReason, e.g. TREAT)"),
    action: z.enum(["disclose", "access", "use", "collect", "correct"]).default("disclose"),
    patients: z.array(z.string().min(1).max(128)).max(100).optional().describe("Patient references; default the patients the payload is about"),
    patient_expression: jsonataExpression("yields the patient reference(s) from the node's input").optional(),
  })
  .strict();
export type OutboundConsentConfig = z.input<typeof OutboundConsentConfig>;

export interface OutboundConsentResult {
  checked: boolean;
  /** The first denial, with its deciding Consent and provision. */
  denied?: ConsentDecision & { patient: string };
  decisions: (ConsentDecision & { patient: string })[];
}

/** The FHIR resources a payload carries: a resource, a Bundle's entries, or arrays of them. */
function resourcesIn(payload: unknown, out: Resource[] = []): Resource[] {
  if (Array.isArray(payload)) {
    for (const p of payload) resourcesIn(p, out);
  } else if (payload && typeof payload === "object" && typeof (payload as Resource).resourceType === "string") {
    const r = payload as Resource;
    if (r.resourceType === "Bundle") for (const e of (r.entry as { resource?: unknown }[] | undefined) ?? []) resourcesIn(e.resource, out);
    else out.push(r);
  }
  return out;
}

/** The data classes a request about `resources` names: types, codes, security labels, references. */
function dataOf(resources: Resource[]): ConsentRequest["data"] {
  const codings = (v: unknown) => ((v as { coding?: { system?: string; code?: string }[] } | undefined)?.coding ?? []);
  return {
    resourceTypes: [...new Set(resources.map((r) => r.resourceType))],
    codes: resources.flatMap((r) => codings(r.code)),
    securityLabels: resources.flatMap((r) => r.meta?.security ?? []),
    references: resources.flatMap((r) => (r.id ? [`${r.resourceType}/${r.id}`] : [])),
  };
}

/** Who a payload is about when the node cannot say it as FHIR: identifier values to look up (HL7 PID-3). */
export interface OutboundSubjects {
  identifiers?: string[];
}

/**
 * Decides whether `payload` may be sent. Not checked (checked: false) when the node says never,
 * or inherit while the org does not enforce; a payload about no patient is sent (nothing to consent to).
 */
export async function checkOutboundConsent(
  decider: ConsentDecider,
  config: OutboundConsentConfig | undefined,
  payload: unknown,
  options: { input?: unknown; subjects?: OutboundSubjects; at?: string } = {},
): Promise<OutboundConsentResult> {
  const c = OutboundConsentConfig.parse(config ?? {});
  if (c.check === "never" || (c.check === "inherit" && !(await decider.policy()).enforceOutbound)) return { checked: false, decisions: [] };
  const at = options.at ?? new Date().toISOString();
  const resources = resourcesIn(payload);
  const patients = await patientsToCheck(decider, c, resources, options);
  const decisions: OutboundConsentResult["decisions"] = [];
  for (const patient of patients) {
    const mine = resources.filter((r) => patientsOf(r).some((id) => `Patient/${id}` === patient));
    const request: ConsentRequest = {
      patient,
      actors: c.actors,
      action: c.action as ConsentAction,
      purposes: c.purposes.map((code) => ({ system: ACT_REASON, code })),
      data: dataOf(mine.length ? mine : resources),
      time: at,
    };
    const decision = { ...(await decider.decide(request)), patient };
    decisions.push(decision);
    if (decision.decision === "deny") return { checked: true, denied: decision, decisions };
  }
  return { checked: true, decisions };
}

/** The node's patients, else those of the payload's FHIR resources, else those its identifiers name. */
async function patientsToCheck(decider: ConsentDecider, c: z.output<typeof OutboundConsentConfig>, resources: Resource[], options: { input?: unknown; subjects?: OutboundSubjects }): Promise<string[]> {
  const named = [...(c.patients ?? [])];
  if (c.patient_expression) {
    const value = await evaluate(c.patient_expression, options.input);
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === "string" && v) named.push(v);
  }
  const refs = named.length ? named : resources.flatMap(patientsOf).map((id) => `Patient/${id}`);
  if (!refs.length && options.subjects?.identifiers?.length) refs.push(...(await decider.patientsByIdentifier(options.subjects.identifiers)));
  return [...new Set(refs.map((p) => (p.includes("/") ? p : `Patient/${p}`)))];
}

/** What a node emits instead of sending: its consent_denied port, with the deciding Consent and provision. */
export type ConsentDenial = Record<"consent_denied", { patient: string; decision: ConsentDecision; target: string }> & Record<string, unknown>;

/**
 * The check every outbound node runs before sending (in test mode too): undefined when the send
 * may go ahead, else the outputs to emit instead. A denial is logged on the node (so the execution
 * record keeps it) and the payload is not sent.
 */
export async function outboundConsentGate(
  ctx: { services: { consent: ConsentDecider }; log(level: "warn", message: string): void },
  config: OutboundConsentConfig | undefined,
  target: string,
  payload: unknown,
  options: { input?: unknown; subjects?: OutboundSubjects } = {},
): Promise<ConsentDenial | undefined> {
  const result = await checkOutboundConsent(ctx.services.consent, config, payload, options);
  if (!result.denied) return undefined;
  const { patient, ...decision } = result.denied;
  ctx.log("warn", `consent denied sending to ${target} for ${patient}: ${decision.reason}`);
  return { consent_denied: { patient, decision, target } };
}

/** The port outbound nodes add for denied sends. */
export const CONSENT_DENIED_PORT = { name: "consent_denied", type: "json", description: "{patient, decision, target}: consent denied the send; nothing was sent" } as const;
