// Each organization's context, built in one place for a request (org-context.ts), a Durable
// Object call or alarm, or the scheduled handler: its data (the org's shard, found in the
// directory, never `env`), its gate and every feature's services on them. The features declare
// what they add (src/platform/org-context.ts); this is where each is built.
import { evaluateReadings } from "../features/alerts/evaluate-readings";
import { consentReadPolicyFor } from "../features/consent/read-enforcement";
import { fhirStoreFor } from "../features/fhir";
import { orgGate } from "../features/tenancy/limits/gate";
import { type Placement, placementOf } from "../platform/directory";
import type { Env } from "../platform/env";
import { type ApiError, notFound } from "../platform/errors";
import type { OrgContext, OrgContexts } from "../platform/org-context";
import { orgData } from "../platform/org-data";
import { controlDatabase } from "../platform/shards";
import { agentServicesFor, pipelineServicesFor } from "./wiring";
// Implementation guides' search parameters and write checks join the store before any store is built.
import "./fhir-search-parameters";
import "./fhir-write-checks";

/** `d1`: the shard as the caller opened it (a request's session); the shard itself by default. */
export function contextFor(env: Env, placement: Placement, d1?: D1Database): OrgContext {
  const data = orgData(env, placement, d1);
  const ctx: OrgContext = {
    ...data,
    placement,
    gate: () => orgGate(env, data.orgId),
    // Patients' Consents govern what the org's stores show (consent/read-enforcement.ts; off unless the org's policy enforces reads).
    fhir: (principal, options) => fhirStoreFor(data, principal, { policy: consentReadPolicyFor(data, principal, options?.purposeOfUse), ...options }),
    pipelines: (principal, testMode) => pipelineServicesFor(data, principal, testMode),
    agents: (principal, options) => agentServicesFor(data, principal, options),
    readingsStored: async (stored) => {
      if (stored.length) await evaluateReadings(ctx, stored);
    },
  };
  return ctx;
}

/** For work outside a request (Durable Objects, the scheduled handler): the org's context from the directory. */
export async function contextForOrg(env: Env, orgId: string): Promise<OrgContext> {
  const placement = await placementOf(controlDatabase(env), orgId);
  if (!placement) throw notFound(`Organization ${orgId} not found`, "ORGANIZATION_NOT_FOUND");
  return contextFor(env, placement);
}

/** See OrgContexts.forPublicOrg. */
export async function contextForPublicOrg(env: Env, orgId: string, refusal: () => ApiError): Promise<OrgContext> {
  const placement = await placementOf(controlDatabase(env), orgId);
  if (!placement) throw refusal();
  return contextFor(env, placement);
}

/** The contexts of `env`'s organizations, for Durable Objects and routes outside a request's org. */
export function orgContexts(env: Env): OrgContexts {
  return {
    forOrg: (orgId) => contextForOrg(env, orgId),
    forPublicOrg: (orgId, refusal) => contextForPublicOrg(env, orgId, refusal),
    at: (placement, d1) => contextFor(env, placement, d1),
  };
}
