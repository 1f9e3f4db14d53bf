// Consent enforcement before data leaves the service. Every outbound node (HTTP, EHR write-back,
// HL7 send, later MHD publish and exports to external systems) takes the same optional `consent`
// config and calls checkOutboundConsent before sending: when the node says "always", or "inherit"
// and the organization enforces outbound consent, each patient the payload is about must be
// permitted to be disclosed to the node's actors for its purposes.
import { z } from "zod";
import { patientsOf } from "../fhir/access-policy";
import type { Resource } from "../fhir/port";
import type { ConsentAction, ConsentDecision, ConsentRequest } from "./decide";
import type { ConsentDecider } from "./service";

const ACT_REASON = "http://terminology.hl7.org/CodeSystem/v3-ActReason";

export const OutboundConsentConfig = z
  .object({
    check: z.enum(["inherit", "always", "never"]).default("inherit").describe("inherit: check when the organization's consent policy enforces outbound consent"),
    actors: z.array(z.string().regex(/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/)).max(20).default([]).describe("References of the recipient (Organization/x, Practitioner/y)"),
    purposes: z.array(z.string().min(1).max(64)).max(10).default([]).describe("Purpose-of-use codes (v3 ActReason, e.g. TREAT)"),
    action: z.enum(["disclose", "access", "use", "collect", "correct"]).default("disclose"),
    patients: z.array(z.string().min(1).max(128)).max(100).optional().describe("Patient references; default the patients the payload's FHIR resources are about"),
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

/**
 * Decides whether `payload` may be sent. Not checked (checked: false) when the node says never,
 * or inherit while the org does not enforce; a payload about no patient is sent (nothing to consent to).
 */
export async function checkOutboundConsent(decider: ConsentDecider, config: OutboundConsentConfig | undefined, payload: unknown, at = new Date().toISOString()): Promise<OutboundConsentResult> {
  const c = OutboundConsentConfig.parse(config ?? {});
  if (c.check === "never" || (c.check === "inherit" && !(await decider.policy()).enforceOutbound)) return { checked: false, decisions: [] };
  const resources = resourcesIn(payload);
  const patients = c.patients ?? [...new Set(resources.flatMap(patientsOf).map((id) => `Patient/${id}`))];
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
