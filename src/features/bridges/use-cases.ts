// Registering, listing, rotating and deleting an org's bridges, and authenticating a bridge's
// connection by its credential.
import { orgObject } from "../../platform/durable-objects/object-names";
import { notFound, unauthorized } from "../../platform/errors";
import type { OrgContext, OrgContexts } from "../../platform/org-context";
import type { Principal } from "../../platform/principal";
import type { BridgeStatus } from "./bridge-relay";
import { credentialDisplayPrefix, generateBridgeCredential, hashBridgeCredential, parseBridgeCredential, sameDigest } from "./credential";
import { BridgeStore } from "./store";
import type { BridgeRow } from "./tables";

export const bridgeNotFound = (id: string) => notFound(`Bridge ${id} not found`, "BRIDGE_NOT_FOUND");

const relayOf = (ctx: OrgContext, bridgeId: string) => orgObject(ctx.env.BRIDGE_RELAY, ctx.orgId, bridgeId);

export async function registerBridge(ctx: OrgContext, principal: Principal, input: { name: string; description?: string | undefined }): Promise<{ row: BridgeRow; credential: string; status: BridgeStatus }> {
  const id = crypto.randomUUID();
  const credential = generateBridgeCredential(ctx.orgId, id);
  const row: BridgeRow = {
    orgId: ctx.orgId,
    id,
    name: input.name,
    description: input.description ?? null,
    credentialHash: await hashBridgeCredential(credential),
    credentialPrefix: credentialDisplayPrefix(credential),
    createdAt: new Date().toISOString(),
    createdBy: principal.keyId,
    credentialRotatedAt: null,
  };
  await new BridgeStore(ctx.db).insert(row);
  return { row, credential, status: { status: "offline", connected_since: null, last_seen_at: null, version: null, host: null } };
}

export async function listBridges(ctx: OrgContext, limit: number, offset: number): Promise<{ bridges: { row: BridgeRow; status: BridgeStatus }[]; total: number }> {
  const { rows, total } = await new BridgeStore(ctx.db).list(ctx.orgId, limit, offset);
  const statuses = await Promise.all(rows.map((row) => relayOf(ctx, row.id).status()));
  return { bridges: rows.map((row, i) => ({ row, status: statuses[i] as BridgeStatus })), total };
}

export async function getBridge(ctx: OrgContext, id: string): Promise<{ row: BridgeRow; status: BridgeStatus }> {
  const row = await new BridgeStore(ctx.db).get(ctx.orgId, id);
  if (!row) throw bridgeNotFound(id);
  return { row, status: await relayOf(ctx, id).status() };
}

/** A new credential; the old one stops working at once and the connection made with it is closed. */
export async function rotateBridgeCredential(ctx: OrgContext, id: string): Promise<{ row: BridgeRow; credential: string; status: BridgeStatus }> {
  const store = new BridgeStore(ctx.db);
  if (!(await store.get(ctx.orgId, id))) throw bridgeNotFound(id);
  const credential = generateBridgeCredential(ctx.orgId, id);
  if (!(await store.setCredential(ctx.orgId, id, await hashBridgeCredential(credential), credentialDisplayPrefix(credential), new Date().toISOString()))) throw bridgeNotFound(id);
  const relay = relayOf(ctx, id);
  await relay.disconnect("the bridge's credential was rotated");
  const row = await store.get(ctx.orgId, id);
  if (!row) throw bridgeNotFound(id);
  return { row, credential, status: await relay.status() };
}

/** Removes the bridge and closes its connection; destinations through it then fail with `configuration`. */
export async function deleteBridge(ctx: OrgContext, id: string): Promise<void> {
  if (!(await new BridgeStore(ctx.db).delete(ctx.orgId, id))) throw bridgeNotFound(id);
  await relayOf(ctx, id).remove();
}

const refused = () => unauthorized("A bridge credential (cdisb_…) is required: Authorization: Bearer <the credential POST /api/v1/bridges answered>");

/** The org and bridge a connection's `Authorization: Bearer <credential>` proves; 401 for anything else (API keys included). */
export async function authenticateBridge(contexts: OrgContexts, authorization: string | undefined): Promise<{ ctx: OrgContext; bridge: BridgeRow }> {
  const credential = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
  const named = credential ? parseBridgeCredential(credential) : undefined;
  if (!credential || !named) throw refused();
  const ctx = await contexts.forPublicOrg(named.orgId, refused);
  const bridge = await new BridgeStore(ctx.db).get(ctx.orgId, named.bridgeId);
  if (!bridge || !sameDigest(bridge.credentialHash, await hashBridgeCredential(credential))) throw refused();
  return { ctx, bridge };
}

/** Hands an authenticated upgrade to the bridge's relay object. */
export function connectBridge(ctx: OrgContext, bridge: BridgeRow, headers: { org: string; bridge: string }): Promise<Response> {
  const upgrade = new Request("https://bridge-relay/connect", { headers: { upgrade: "websocket", [headers.org]: ctx.orgId, [headers.bridge]: bridge.id } });
  return relayOf(ctx, bridge.id).fetch(upgrade);
}
