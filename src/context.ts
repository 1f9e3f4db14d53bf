// The composition root: everything one organization's work runs on, built in one place for a
// request (middleware below), a Durable Object call or alarm, or the scheduled handler. Stores
// take their database from here (the org's shard, found in the directory), never from `env`.
// Routes get it from the request (src/http/org-context.ts, `c.get("ctx")`).
import type { AgentServiceOptions, AgentServices } from "./features/agents/services";
import type { Principal } from "./features/tenancy/auth/permissions";
import type { Env } from "./platform/env";
import { type ApiError, notFound } from "./platform/errors";
import { type FhirService, type FhirStoreOptions, fhirStoreFor } from "./features/fhir";
import { orgGate } from "./features/tenancy/limits/gate";
import { type Placement, placementOf } from "./platform/directory";
import { type OrgData, orgData } from "./platform/org-data";
import { controlDatabase } from "./platform/shards";
import { FHIR_EXTENSIONS } from "./fhir-extensions";
import type { PipelineServices } from "./features/pipelines/services";
import { evaluateReadings, type StoredReading } from "./features/alerts/evaluate-readings";
import { agentServicesFor, pipelineServicesFor } from "./service-wiring";
import { consentReadPolicyFor } from "./features/consent/read-enforcement";

export interface OrgContext extends OrgData {
  readonly placement: Placement;
  /** The org's OrgGate (rate buckets, concurrency slots, leases). */
  gate(): ReturnType<typeof orgGate>;
  /** The org's FHIR store acting as `principal` (who must belong to this org), with the deployment's FHIR extensions unless `options` names others. */
  fhir(principal: Principal, options?: Partial<FhirStoreOptions>): FhirService;
  pipelines(principal: Principal, testMode: boolean): PipelineServices;
  agents(principal: Principal, options?: AgentServiceOptions): AgentServices;
  /** Device readings just stored as new Observations (webhook, upload, sync, MQTT): threshold alerts evaluate them. */
  readingsStored(stored: readonly StoredReading[]): Promise<void>;
}

/** `d1`: the shard as the caller opened it (a request's session); the shard itself by default. */
export function contextFor(env: Env, placement: Placement, d1?: D1Database): OrgContext {
  const data = orgData(env, placement, d1);
  const ctx: OrgContext = {
    ...data,
    placement,
    gate: () => orgGate(env, data.orgId),
    // Patients' Consents govern what the org's stores show (consent/read-enforcement.ts; off unless the org's policy enforces reads).
    fhir: (principal, options) => {
      const extensions = options?.extensions ?? FHIR_EXTENSIONS;
      return fhirStoreFor(data, principal, { policy: consentReadPolicyFor(data, principal, extensions, options?.purposeOfUse), ...options, extensions });
    },
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

/**
 * For a public route that names its organization in the path (webhooks, OAuth callbacks, uploads):
 * an unknown organization answers `refusal`, what a bad credential of that route answers, so the
 * answers never tell anyone which organization ids exist.
 */
export async function contextForPublicOrg(env: Env, orgId: string, refusal: () => ApiError): Promise<OrgContext> {
  const placement = await placementOf(controlDatabase(env), orgId);
  if (!placement) throw refusal();
  return contextFor(env, placement);
}
