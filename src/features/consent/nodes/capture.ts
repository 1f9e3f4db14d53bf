// consent.capture: builds a FHIR R4 Consent from a form (or takes a Consent), validates it with
// the store's validator and stores it; revokes one (status inactive); or replaces one (the old
// made inactive and the new created in one transaction, so there is never zero or two).
import { z } from "zod";
import type { Bundle, Resource } from "../../fhir";
import { NodeFailure } from "../../pipelines";
import { defineNode, type NodeContext } from "../../pipelines";
import { evaluate, jsonataExpression } from "../../pipelines";
import { buildConsent, type ConsentForm } from "../build";

const Config = z
  .object({
    operation: z.enum(["create", "revoke", "replace"]).default("create"),
    input_expression: jsonataExpression("yields the form (create), {consent_id} (revoke) or {consent_id, consent} (replace); default the input").optional(),
  })
  .strict();
type Config = z.infer<typeof Config>;

/** A Consent resource passed through, or one built from a form; a bad form fails with its issues. */
function consentFrom(value: unknown): Resource {
  if (value && typeof value === "object" && (value as Resource).resourceType === "Consent") return value as Resource;
  if (value && typeof value === "object" && (value as Resource).resourceType !== undefined) throw new NodeFailure("NOT_A_CONSENT", `Expected a Consent or a consent form, got ${(value as Resource).resourceType}`);
  try {
    return buildConsent(value as ConsentForm);
  } catch (e) {
    if (e instanceof z.ZodError) throw new NodeFailure("INVALID_CONSENT_FORM", e.issues.map((i) => `${i.path.join(".") || "(form)"}: ${i.message}`).join("; "));
    throw e;
  }
}

const consentId = (value: unknown): string => {
  const id = (value as { consent_id?: unknown } | undefined)?.consent_id;
  if (typeof id !== "string" || !id) throw new NodeFailure("CONSENT_ID_REQUIRED", "revoke and replace need {consent_id} in the input");
  return id.replace(/^Consent\//, "");
};

async function invalidity(ctx: NodeContext<Config>, resource: Resource) {
  const outcome = await ctx.services.validateResource(resource);
  return outcome.issue.some((i) => i.severity === "error" || i.severity === "fatal") ? { invalid: { resource, outcome } } : undefined;
}

export const consentCapture = defineNode({
  id: "consent.capture",
  name: "Capture consent",
  category: "healthcare",
  description: "Builds a FHIR R4 Consent from a form (or takes one), validates and stores it; or revokes or replaces a stored Consent.",
  keywords: ["consent", "capture", "privacy", "opt-in", "opt-out", "revoke", "ehds", "gdpr"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [
    { name: "consent", type: "fhir-resource", description: "The stored (or, in test mode, built) Consent" },
    { name: "revoked", type: "fhir-resource", description: "revoke and replace: the Consent made inactive" },
    { name: "invalid", type: "json", description: "{resource, outcome}: the store's validator refused the Consent" },
  ],
  config: Config,
  documentation: {
    summary:
      "Form fields: patient, status (active), scope (patient-privacy), categories, date_time, performers, organizations, policy_rule (default OPTIN, or OPTOUT for a root deny), policy, identifier and provision {type, period, actors [{reference, role}], actions, purposes, resource_types, codes, security_labels, data [{reference, meaning}], provisions [nested]}. revoke takes {consent_id}; replace takes {consent_id, consent} and writes both in one transaction. Test mode writes nothing and reports would_write.",
    example: {
      config: { operation: "create" },
      inputs: { input: { patient: "Patient/p1", provision: { type: "permit", provisions: [{ type: "deny", purposes: ["HRESCH"] }] } } },
      outputs: { consent: { resourceType: "Consent", status: "active" } },
    },
  },
  run: async (ctx) => {
    const { config, services } = ctx;
    const value = config.input_expression ? await evaluate(config.input_expression, ctx.inputs.input) : ctx.inputs.input;
    if (config.operation === "create") {
      const consent = consentFrom(value);
      const bad = await invalidity(ctx, consent);
      if (bad) return { outputs: bad };
      if (ctx.testMode) {
        ctx.wouldWrite("fhir:create Consent", consent);
        return { outputs: { consent } };
      }
      return { outputs: { consent: (await services.fhir().create(consent)).resource } };
    }
    const id = consentId(value);
    const current = await services.fhir().read("Consent", id);
    const revoked: Resource = { ...current, id, status: "inactive" };
    const ifMatch = current.meta?.versionId;
    if (config.operation === "revoke") {
      if (ctx.testMode) {
        ctx.wouldWrite(`fhir:update Consent/${id}`, revoked);
        return { outputs: { revoked } };
      }
      return { outputs: { revoked: (await services.fhir().update({ ...revoked, id }, ifMatch ? { ifMatch } : {})).resource } };
    }
    const replacement = consentFrom((value as { consent?: unknown }).consent);
    const bad = await invalidity(ctx, replacement);
    if (bad) return { outputs: bad };
    const bundle: Bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { resource: revoked, request: { method: "PUT", url: `Consent/${id}`, ...(ifMatch ? { ifMatch: `W/"${ifMatch}"` } : {}) } },
        { fullUrl: "urn:uuid:replacement", resource: replacement, request: { method: "POST", url: "Consent" } },
      ],
    };
    if (ctx.testMode) {
      ctx.wouldWrite("fhir:transaction", bundle);
      return { outputs: { consent: replacement, revoked } };
    }
    const response = await services.fhir().batch(bundle);
    const [old, created] = [response.entry?.[0]?.resource, response.entry?.[1]?.resource];
    return { outputs: { consent: created ?? replacement, revoked: old ?? revoked } };
  },
});
