// Client application administration: register, list, read, change and delete an org's backend
// clients. Keys and scopes are checked here so a registration that could never get a token is
// refused at save (422), not at the token endpoint.
import type { JWK } from "jose";
import { notFound, unprocessable } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../../platform/principal";
import { jwksProblem } from "./client-keys";
import { type ClientChanges, ClientApplicationStore } from "./clients";
import { forgetClient } from "./client-cache";
import { isSystemScope } from "./scopes";
import type { ClientApplicationRow } from "./tables";

export interface ClientRequest {
  name: string;
  jwks?: { keys: JWK[] } | null;
  jwks_url?: string | null;
  scopes: string[];
  status?: "active" | "disabled";
}

const missing = () => notFound("Client application not found", "CLIENT_APPLICATION_NOT_FOUND");

function checkKeys(jwks: { keys: JWK[] } | null | undefined, jwksUrl: string | null | undefined): void {
  if (!jwks && !jwksUrl) throw unprocessable("A client needs its public keys: jwks or jwks_url", [{ path: "jwks", message: "jwks or jwks_url is required" }]);
  const problem = jwks ? jwksProblem(jwks) : undefined;
  if (problem) throw unprocessable(`Unusable JWK Set: ${problem}`, [{ path: "jwks", message: problem }]);
  if (jwksUrl && !jwksUrl.startsWith("https://")) throw unprocessable("jwks_url must be an https URL", [{ path: "jwks_url", message: "must be https" }]);
}

function checkScopes(scopes: readonly string[]): void {
  const bad = scopes.filter((s) => !isSystemScope(s));
  if (bad.length) throw unprocessable(`Not system/ SMART scopes: ${bad.join(", ")}`, [{ path: "scopes", message: "each scope must be system/<Type|*>.<read|write|*|cruds subset>" }]);
}

export async function createClient(data: OrgData, principal: Principal, req: ClientRequest): Promise<ClientApplicationRow> {
  checkKeys(req.jwks, req.jwks_url);
  checkScopes(req.scopes);
  return new ClientApplicationStore(data.control).create({
    id: crypto.randomUUID(),
    orgId: data.orgId,
    name: req.name,
    kind: "backend",
    jwks: req.jwks ?? null,
    jwksUrl: req.jwks_url ?? null,
    scopes: [...new Set(req.scopes)],
    status: req.status ?? "active",
    createdAt: new Date().toISOString(),
    createdBy: principal.keyId,
    accessPolicyId: null,
  });
}

export function listClients(data: OrgData, limit: number, offset: number) {
  return new ClientApplicationStore(data.control).list(data.orgId, limit, offset);
}

export async function getClient(data: OrgData, id: string): Promise<ClientApplicationRow> {
  const row = await new ClientApplicationStore(data.control).get(data.orgId, id);
  if (!row) throw missing();
  return row;
}

export async function updateClient(data: OrgData, id: string, req: Partial<ClientRequest>): Promise<ClientApplicationRow> {
  const current = await getClient(data, id);
  const changes: ClientChanges = {};
  if (req.name !== undefined) changes.name = req.name;
  if (req.jwks !== undefined) changes.jwks = req.jwks;
  if (req.jwks_url !== undefined) changes.jwksUrl = req.jwks_url;
  if (req.scopes !== undefined) changes.scopes = [...new Set(req.scopes)];
  if (req.status !== undefined) changes.status = req.status;
  checkKeys(changes.jwks !== undefined ? changes.jwks : current.jwks, changes.jwksUrl !== undefined ? changes.jwksUrl : current.jwksUrl);
  checkScopes(changes.scopes ?? current.scopes);
  const row = await new ClientApplicationStore(data.control).update(data.orgId, id, changes);
  if (!row) throw missing();
  forgetClient(row.id);
  return row;
}

export async function deleteClient(data: OrgData, id: string): Promise<ClientApplicationRow> {
  const row = await new ClientApplicationStore(data.control).delete(data.orgId, id);
  if (!row) throw missing();
  forgetClient(row.id);
  return row;
}
