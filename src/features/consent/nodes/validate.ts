// consent.validate: decides whether an action on a patient's data is permitted by the patient's
// Consents (and the org's default policy), and routes the input to permit or deny.
import { z } from "zod";
import { NodeFailure } from "../../pipelines";
import { defineNode } from "../../pipelines";
import { evaluate, jsonataExpression } from "../../pipelines";
import { CONSENT_ACTIONS, type ConsentRequest } from "../decide";

const CodingOrCode = z.union([z.string().min(1), z.object({ system: z.string().optional(), code: z.string().min(1) }).strict()]);
const ACT_REASON = "http://terminology.hl7.org/CodeSystem/v3-ActReason";
const coding = (c: z.infer<typeof CodingOrCode>, system?: string) => (typeof c === "string" ? { ...(system ? { system } : {}), code: c } : c);

/** The request as the node accepts it (from the input or its expression), config values filling gaps. */
const RequestSchema = z
  .object({
    patient: z.string().min(1),
    actors: z.array(z.string().min(1)).optional(),
    action: z.enum(CONSENT_ACTIONS).optional(),
    purposes: z.array(CodingOrCode).optional(),
    resource_types: z.array(z.string()).optional(),
    codes: z.array(CodingOrCode).optional(),
    security_labels: z.array(CodingOrCode).optional(),
    references: z.array(z.string()).optional(),
    time: z.string().optional(),
  })
  .passthrough();

const Config = z
  .object({
    request_expression: jsonataExpression("yields the request {patient, actors, action, purposes, resource_types, codes, security_labels, references, time}; default the input").optional(),
    action: z.enum(CONSENT_ACTIONS).default("access").describe("When the request names none"),
    actors: z.array(z.string()).default([]).describe("When the request names none"),
    purposes: z.array(z.string()).default([]).describe("v3 ActReason codes, when the request names none"),
  })
  .strict();

export const consentValidate = defineNode({
  id: "consent.validate",
  name: "Validate consent",
  category: "healthcare",
  description: "Decides from the patient's active Consents (nested provisions, org default policy) whether an action is permitted, and routes the input to permit or deny.",
  keywords: ["consent", "validate", "permit", "deny", "privacy", "authorization", "purpose of use"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [
    { name: "permit", type: "json", description: "{input, decision}" },
    { name: "deny", type: "json", description: "{input, decision}: the deciding Consent and provision, or the default policy" },
  ],
  config: Config,
  documentation: {
    summary:
      "decision = {decision, basis (consent or default), consent, provision, applied, reason}. Within one Consent the deepest matching provision decides and a deny beats a permit of equal depth; across Consents a deny overrides; no applicable Consent: opt-in denies, opt-out permits (PUT /api/consent/policy). Leave deny unconnected to stop there.",
    example: {
      config: { action: "disclose", purposes: ["TREAT"], actors: ["Organization/hie"] },
      inputs: { input: { patient: "Patient/p1", resource_types: ["Observation"] } },
      outputs: { permit: { decision: { decision: "permit", consent: "Consent/c1", provision: "provision" } } },
    },
  },
  run: async (ctx) => {
    const { config, inputs } = ctx;
    const raw = config.request_expression ? await evaluate(config.request_expression, inputs.input) : inputs.input;
    const parsed = RequestSchema.safeParse(raw);
    if (!parsed.success) throw new NodeFailure("INVALID_CONSENT_REQUEST", parsed.error.issues.map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`).join("; "));
    const r = parsed.data;
    const request: ConsentRequest = {
      patient: r.patient,
      actors: r.actors ?? config.actors,
      action: r.action ?? config.action,
      purposes: (r.purposes ?? config.purposes).map((p) => coding(p, ACT_REASON)),
      data: { resourceTypes: r.resource_types, codes: r.codes?.map((c) => coding(c)), securityLabels: r.security_labels?.map((c) => coding(c)), references: r.references },
      ...(r.time ? { time: r.time } : {}),
    };
    if (request.time && Number.isNaN(Date.parse(request.time))) throw new NodeFailure("INVALID_CONSENT_REQUEST", `time: not a date-time: ${request.time}`);
    const decision = await ctx.services.consent.decide(request);
    ctx.log(decision.decision === "deny" ? "warn" : "info", `consent ${decision.decision}: ${decision.reason}`);
    return { outputs: { [decision.decision]: { input: inputs.input, decision } } };
  },
});
