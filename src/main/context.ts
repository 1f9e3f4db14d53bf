// Each organization's context, built in one place for a request (org-context.ts), a Durable
// Object call or alarm, or the scheduled handler: its data (the org's shard, found in the
// directory, never `env`), its gate and every feature's services on them. The features declare
// what they add (src/platform/org-context.ts); this is where each is built.
import { accessPolicyFor } from "../features/access-policies";
import { evaluateReadings } from "../features/alerts/evaluate-readings";
import { codeRunner } from "../features/code/index";
import { consentReadPolicyFor } from "../features/consent/read-enforcement";
import { ConnectorTypeRegistry } from "../features/connectors/types";
import { destinationsPort, publishEvents } from "../features/event-webhooks";
import { allOf, fhirStoreFor, smartScopePolicy } from "../features/fhir";
import { NodeRegistry } from "../features/pipelines/registry";
import { orgGate } from "../features/tenancy/limits/gate";
import { type Placement, placementOf } from "../platform/directory";
import type { Env } from "../platform/env";
import { type ApiError, notFound } from "../platform/errors";
import type { OrgContext, OrgContexts } from "../platform/org-context";
import { orgData } from "../platform/org-data";
import { controlDatabase } from "../platform/shards";
import { CONNECTOR_TYPE_CATALOG, FHIR_EXTENSIONS, NODE_FAMILIES } from "./catalogs";
import { DELIVERY_TRANSPORTS } from "./delivery";
import { devicePlatformsOf, platformServices } from "./device-platform-services";
import { fhirChanged } from "./fhir-changes";
import { codeHelpers } from "./plugins";
import { agentServicesFor, execute, openExecutionBatch, pipelineServicesFor, runFor } from "./wiring";

// The deployment's catalogs, built once per isolate: every context shares them.
const nodes = new NodeRegistry(NODE_FAMILIES);
const connectorTypes = new ConnectorTypeRegistry(CONNECTOR_TYPE_CATALOG);

/** `d1`: the shard as the caller opened it (a request's session); the shard itself by default. */
export function contextFor(env: Env, placement: Placement, d1?: D1Database): OrgContext {
  const data = orgData(env, placement, d1);
  const ctx: OrgContext = {
    ...data,
    placement,
    gate: () => orgGate(env, data.orgId),
    fhirExtensions: FHIR_EXTENSIONS,
    // Patients' Consents govern what the org's stores show (consent/read-enforcement.ts; off unless the org's policy enforces reads),
    // unless the caller chose the policy; a token's SMART scopes and the access policy assigned to the credential
    // (access-policies/) narrow every store it reads as, whichever (deny wins).
    // Every commit is told to the change listeners (fhir-changes.ts); `onChange: undefined` in `options` writes silently.
    fhir: (principal, options) => {
      const extensions = options?.extensions ?? FHIR_EXTENSIONS;
      const chosen = options?.policy ?? consentReadPolicyFor(data, principal, extensions, options?.purposeOfUse);
      const policy = allOf(smartScopePolicy(principal), accessPolicyFor(data, principal, extensions), chosen);
      return fhirStoreFor(data, principal, { onChange: (changes) => fhirChanged(ctx, changes), ...options, extensions, policy });
    },
    nodes,
    connectorTypes,
    deliveryTransports: DELIVERY_TRANSPORTS,
    pipelines: (principal, testMode) => pipelineServicesFor(ctx, principal, testMode),
    execute: (req) => execute(ctx, req),
    openExecutionBatch: (opts) => openExecutionBatch(ctx, opts),
    runFor: (job, durableWaits) => runFor(ctx, job, durableWaits),
    agents: (principal, options) => agentServicesFor(ctx, principal, options),
    // Code-backed tools run the code node's sandbox and ctx on the caller's pipeline services.
    code: (principal, testMode) => codeRunner(ctx.pipelines(principal, testMode), codeHelpers, { orgId: data.orgId, testMode }),
    // The service's events go to the org's webhook endpoints subscribed to them (docs/webhooks.md).
    publish: (events) => publishEvents(ctx, events, destinationsPort),
    readingsStored: async (stored) => {
      if (stored.length) await evaluateReadings(ctx, stored);
    },
    // Read at each use, as the deployment's service profile answers them (a test chooses its fakes per file).
    get devicePlatforms() {
      return devicePlatformsOf(env);
    },
    get platformServices() {
      return platformServices(env);
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
