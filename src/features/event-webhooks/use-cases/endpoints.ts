// Webhook endpoints: create (the secret answered once), list, get, update, delete, rotate the
// secret. Each endpoint has a managed destination (owner webhook/<id>) that its deliveries queue
// on; every write here brings it in step (URL, valid secrets, paused while disabled).
import { type FieldError, notFound, validationFailed } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import { PUBLIC_ONLY, checkUrl, outboundPolicyOf } from "../../../platform/outbound/policy";
import { isResourceType } from "../../fhir";
import type { DeliveryPort } from "../delivery";
import { forgetEndpoints } from "../endpoint-cache";
import { DEFAULT_OVERLAP_HOURS, newSecret, rotated, sealSecrets, type SigningSecret, unsealSecrets, validSecrets } from "../secrets";
import { WebhookStore } from "../store";
import { eventTypeProblems } from "../subscriptions";
import type { WebhookEndpointRow } from "../tables";

export const endpointNotFound = (id: string) => notFound(`Webhook endpoint ${id} not found`, "WEBHOOK_ENDPOINT_NOT_FOUND");

export interface EndpointInput {
  url: string;
  event_types: string[];
  description?: string | null;
  enabled?: boolean;
}

/** An endpoint with its secrets decrypted (never presented but for the one just made). */
export interface Endpoint {
  row: WebhookEndpointRow;
  secrets: SigningSecret[];
}

/**
 * https to any address the outbound guard lets through; http only to an address that is not
 * public and that OUTBOUND_ALLOW allows (an on-premises receiver, a test's loopback). No
 * credentials or fragment in the URL.
 */
export function urlProblems(env: object, url: string): FieldError[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ path: "url", message: "is not a valid absolute URL" }];
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return [{ path: "url", message: "must be an https URL" }];
  if (parsed.username || parsed.password) return [{ path: "url", message: "must not carry credentials" }];
  if (parsed.hash) return [{ path: "url", message: "must not have a fragment" }];
  const verdict = checkUrl(parsed, outboundPolicyOf(env));
  if (!verdict.ok) return [{ path: "url", message: verdict.reason }];
  if (parsed.protocol === "http:" && checkUrl(parsed, PUBLIC_ONLY).ok) return [{ path: "url", message: "must be https (http is accepted only for addresses OUTBOUND_ALLOW lists)" }];
  return [];
}

function check(ctx: OrgContext, input: Partial<EndpointInput>): void {
  const problems = [...(input.url !== undefined ? urlProblems(ctx.env, input.url) : []), ...(input.event_types !== undefined ? eventTypeProblems(input.event_types, isResourceType) : [])];
  if (problems.length) throw validationFailed("Invalid webhook endpoint", problems);
}

async function withSecrets(ctx: OrgContext, row: WebhookEndpointRow): Promise<Endpoint> {
  return { row, secrets: await unsealSecrets(ctx.env, ctx.orgId, row.id, row.secretsEnc) };
}

/** The destination as the endpoint's row and secrets say it should be. */
async function syncDestination(ctx: OrgContext, port: DeliveryPort, endpoint: Endpoint): Promise<WebhookEndpointRow> {
  const { row } = endpoint;
  const destinationId = await port.save(ctx, row.id, { url: row.url, signing_secrets: validSecrets(endpoint.secrets).map((s) => s.secret), state: row.enabled ? "active" : "paused" });
  forgetEndpoints(ctx);
  if (destinationId === row.destinationId) return row;
  return (await new WebhookStore(ctx.db).update(ctx.orgId, row.id, { destinationId })) ?? row;
}

export async function createEndpoint(ctx: OrgContext, port: DeliveryPort, input: EndpointInput): Promise<{ row: WebhookEndpointRow; secret: string }> {
  check(ctx, input);
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const secret = newSecret();
  const secrets: SigningSecret[] = [{ secret, created_at: now, expires_at: null }];
  const store = new WebhookStore(ctx.db);
  const row = await store.insert({
    orgId: ctx.orgId,
    id,
    url: input.url,
    description: input.description ?? null,
    eventTypes: input.event_types,
    enabled: input.enabled ?? true,
    secretsEnc: await sealSecrets(ctx.env, ctx.orgId, id, secrets),
    createdAt: now,
    updatedAt: now,
  });
  try {
    return { row: await syncDestination(ctx, port, { row, secrets }), secret };
  } catch (e) {
    await store.delete(ctx.orgId, id);
    forgetEndpoints(ctx);
    throw e;
  }
}

export function listEndpoints(ctx: OrgContext, limit: number, offset: number) {
  return new WebhookStore(ctx.db).list(ctx.orgId, limit, offset);
}

export async function getEndpoint(ctx: OrgContext, id: string): Promise<Endpoint> {
  const row = await new WebhookStore(ctx.db).get(ctx.orgId, id);
  if (!row) throw endpointNotFound(id);
  return withSecrets(ctx, row);
}

/** Changes what the body gives; enabling a disabled endpoint clears its disable state and failure count. */
export async function updateEndpoint(ctx: OrgContext, port: DeliveryPort, id: string, input: Partial<EndpointInput>): Promise<WebhookEndpointRow> {
  check(ctx, input);
  const current = await getEndpoint(ctx, id);
  const enabling = input.enabled === true && !current.row.enabled;
  const set = {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.event_types !== undefined ? { eventTypes: input.event_types } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(enabling ? { disabledReason: null, disabledAt: null, failingSince: null } : {}),
  };
  const row = await new WebhookStore(ctx.db).update(ctx.orgId, id, set);
  if (!row) throw endpointNotFound(id);
  return syncDestination(ctx, port, { row, secrets: current.secrets });
}

export async function deleteEndpoint(ctx: OrgContext, port: DeliveryPort, id: string): Promise<void> {
  await getEndpoint(ctx, id);
  await port.remove(ctx, id);
  await new WebhookStore(ctx.db).delete(ctx.orgId, id);
  forgetEndpoints(ctx);
}

/** A new current secret; the ones before sign too until `overlapHours` from now (the overlap). */
export async function rotateSecret(ctx: OrgContext, port: DeliveryPort, id: string, overlapHours = DEFAULT_OVERLAP_HOURS): Promise<{ row: WebhookEndpointRow; secret: string; secrets: SigningSecret[] }> {
  const current = await getEndpoint(ctx, id);
  const secret = newSecret();
  const secrets = rotated(current.secrets, secret, overlapHours);
  const row = await new WebhookStore(ctx.db).update(ctx.orgId, id, { secretsEnc: await sealSecrets(ctx.env, ctx.orgId, id, secrets) });
  if (!row) throw endpointNotFound(id);
  return { row: await syncDestination(ctx, port, { row, secrets }), secret, secrets };
}
