// Client application administration: register, list, read, change and delete an org's SMART
// clients (backend services and apps users authorize), and rotate a client's secret. Keys,
// redirect URIs, grant types and scopes are checked here so a registration that could never get a
// token is refused at save (422), not at the token endpoint. A client secret is generated here,
// shown once in the answer that made it, and kept only as its SHA-256.
import type { JWK } from "jose";
import { ApiError, notFound, unprocessable } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../../platform/principal";
import { scopeError } from "../fhir";
import { redirectUriProblem } from "./authorize/request";
import { jwksProblem } from "./client-keys";
import { type ClientChanges, ClientApplicationStore } from "./clients";
import { forgetClient } from "./client-cache";
import { forgetGrants } from "./grants";
import { isAppScope, isSystemScope } from "./scopes";
import { newSecret, sha256Hex } from "./secrets";
import type { ClientApplicationRow, GrantType } from "./tables";

export interface ClientRequest {
  name: string;
  jwks?: { keys: JWK[] } | null;
  jwks_url?: string | null;
  scopes: string[];
  status?: "active" | "disabled";
  type?: "public" | "confidential";
  grant_types?: GrantType[];
  redirect_uris?: string[];
  launch_uri?: string | null;
}

const missing = () => notFound("Client application not found", "CLIENT_APPLICATION_NOT_FOUND");
const refuse = (path: string, message: string) => unprocessable(message, [{ path, message }]);

/** Every rule a registration must meet, on the whole record as it would be stored. */
function checkClient(row: ClientApplicationRow): void {
  const grants = new Set(row.grantTypes);
  const asymmetric = row.jwks !== null || row.jwksUrl !== null;
  if (row.jwks) {
    const problem = jwksProblem(row.jwks);
    if (problem) throw refuse("jwks", `Unusable JWK Set: ${problem}`);
  }
  if (row.jwksUrl && !row.jwksUrl.startsWith("https://")) throw refuse("jwks_url", "jwks_url must be an https URL");
  if (row.type === "public") {
    if (asymmetric) throw refuse("type", "A public client has no keys: drop jwks / jwks_url, or make it confidential");
    if (grants.has("client_credentials")) throw refuse("grant_types", "A public client cannot use client_credentials");
  } else if (!asymmetric && !row.secretHash) {
    throw refuse("jwks", "A confidential client needs its public keys (jwks or jwks_url) or a client secret");
  }
  if (grants.has("refresh_token") && !grants.has("authorization_code")) throw refuse("grant_types", "refresh_token comes with authorization_code");
  if (grants.has("authorization_code") && row.redirectUris.length === 0) throw refuse("redirect_uris", "authorization_code needs at least one redirect URI");
  for (const uri of row.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw refuse("redirect_uris", problem);
  }
  if (row.launchUri !== null) {
    if (!grants.has("authorization_code")) throw refuse("launch_uri", "An EHR launch needs the authorization_code grant");
    const problem = redirectUriProblem(row.launchUri);
    if (problem) throw refuse("launch_uri", problem.replace(/^.*? must/, "launch_uri must"));
  }
  const bad = row.scopes.filter((s) => {
    if (isSystemScope(s)) return !grants.has("client_credentials");
    return !(grants.has("authorization_code") && isAppScope(s) && scopeError(s) === undefined);
  });
  if (bad.length) {
    throw refuse(
      "scopes",
      `Scopes this client's grant types cannot use: ${bad.join(", ")} (system/<Type|*>.<read|write|*|cruds> for client_credentials; patient/, user/, openid, fhirUser, launch, launch/patient, launch/encounter, offline_access, online_access for authorization_code)`,
    );
  }
}

function defaultGrants(req: ClientRequest): GrantType[] {
  if (req.grant_types) return [...new Set(req.grant_types)];
  return req.redirect_uris?.length ? ["authorization_code", "refresh_token"] : ["client_credentials"];
}

/** The registered client and, for a confidential client without keys, its new secret (shown once). */
export async function createClient(data: OrgData, principal: Principal, req: ClientRequest): Promise<{ row: ClientApplicationRow; secret?: string }> {
  const type = req.type ?? "confidential";
  const asymmetric = Boolean(req.jwks || req.jwks_url);
  const secret = type === "confidential" && !asymmetric ? newSecret("secret") : undefined;
  const now = new Date().toISOString();
  const grantTypes = defaultGrants(req);
  const row: ClientApplicationRow = {
    id: crypto.randomUUID(),
    orgId: data.orgId,
    name: req.name,
    kind: grantTypes.includes("authorization_code") ? "app" : "backend",
    type,
    secretHash: secret ? await sha256Hex(secret) : null,
    secretCreatedAt: secret ? now : null,
    redirectUris: [...new Set(req.redirect_uris ?? [])],
    grantTypes,
    launchUri: req.launch_uri ?? null,
    jwks: req.jwks ?? null,
    jwksUrl: req.jwks_url ?? null,
    scopes: [...new Set(req.scopes)],
    status: req.status ?? "active",
    createdAt: now,
    createdBy: principal.keyId,
    accessPolicyId: null,
  };
  checkClient(row);
  await new ClientApplicationStore(data.control).create(row);
  return { row, ...(secret ? { secret } : {}) };
}

export function listClients(data: OrgData, limit: number, offset: number) {
  return new ClientApplicationStore(data.control).list(data.orgId, limit, offset);
}

export async function getClient(data: OrgData, id: string): Promise<ClientApplicationRow> {
  const row = await new ClientApplicationStore(data.control).get(data.orgId, id);
  if (!row) throw missing();
  return row;
}

function forget(row: ClientApplicationRow): void {
  forgetClient(row.id);
  forgetGrants((g) => g.clientId === row.id);
}

export async function updateClient(data: OrgData, id: string, req: Partial<ClientRequest>): Promise<ClientApplicationRow> {
  const current = await getClient(data, id);
  const changes: ClientChanges = {};
  if (req.name !== undefined) changes.name = req.name;
  if (req.jwks !== undefined) changes.jwks = req.jwks;
  if (req.jwks_url !== undefined) changes.jwksUrl = req.jwks_url;
  if (req.scopes !== undefined) changes.scopes = [...new Set(req.scopes)];
  if (req.status !== undefined) changes.status = req.status;
  if (req.grant_types !== undefined) changes.grantTypes = [...new Set(req.grant_types)];
  if (req.redirect_uris !== undefined) changes.redirectUris = [...new Set(req.redirect_uris)];
  if (req.launch_uri !== undefined) changes.launchUri = req.launch_uri;
  const next = { ...current, ...changes };
  next.kind = next.grantTypes.includes("authorization_code") ? "app" : "backend";
  changes.kind = next.kind;
  checkClient(next);
  const row = await new ClientApplicationStore(data.control).update(data.orgId, id, changes);
  if (!row) throw missing();
  forget(row);
  return row;
}

export async function deleteClient(data: OrgData, id: string): Promise<ClientApplicationRow> {
  const row = await new ClientApplicationStore(data.control).delete(data.orgId, id);
  if (!row) throw missing();
  forget(row);
  return row;
}

/** A new client secret (the old one stops at once), shown once. Only a confidential client authenticating with a secret has one. */
export async function rotateSecret(data: OrgData, id: string): Promise<{ row: ClientApplicationRow; secret: string }> {
  const current = await getClient(data, id);
  if (current.type !== "confidential" || (!current.secretHash && (current.jwks || current.jwksUrl))) {
    throw new ApiError(409, "NO_CLIENT_SECRET", current.type === "public" ? "A public client has no secret" : "This client authenticates with its keys (private_key_jwt), not a secret");
  }
  const secret = newSecret("secret");
  const row = await new ClientApplicationStore(data.control).update(data.orgId, id, { secretHash: await sha256Hex(secret), secretCreatedAt: new Date().toISOString() });
  if (!row) throw missing();
  forget(row);
  return { row, secret };
}
