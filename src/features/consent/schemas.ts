// API schemas of the consent feature: the organization's consent policy.
import { z } from "@hono/zod-openapi";
import type { ConsentPolicy } from "./policy-store";

export const ConsentPolicyBody = z
  .object({
    default_policy: z.enum(["opt-in", "opt-out"]).openapi({ description: "When no Consent of the patient applies: opt-in denies, opt-out permits" }),
    enforce_outbound: z.boolean().openapi({ description: "Every outbound node (HTTP, EHR write, HL7 send) checks consent before sending, unless its consent.check is never" }),
    enforce_reads: z.boolean().default(false).openapi({
      description:
        "The FHIR API's reads, searches, history, $everything and Bulk Data exports show a patient's resources only where the patient's Consents (or, with none applying, default_policy) permit the key's access (docs/consent.md, \"Enforcement on FHIR reads\"); default false",
    }),
  })
  .strict()
  .openapi("ConsentPolicyBody");

export const ConsentPolicySchema = ConsentPolicyBody.extend({
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable().openapi({ description: "The API key id that last changed it" }),
}).openapi("ConsentPolicy");

export function presentConsentPolicy(p: ConsentPolicy): z.infer<typeof ConsentPolicySchema> {
  return { default_policy: p.defaultPolicy, enforce_outbound: p.enforceOutbound, enforce_reads: p.enforceReads, updated_at: p.updatedAt, updated_by: p.updatedBy };
}
