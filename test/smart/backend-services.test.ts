// SMART Backend Services end to end: a registered client signs an assertion, gets an access
// token and reads FHIR data with it; the refusals RFC 6749 / SMART name, and the token's reach.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { InvalidToken, verifyAccessToken } from "../../src/features/smart/access-tokens";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { controlStore } from "../../src/platform/org-data";
import { call, createTenant, type Tenant } from "../support/tenants";

type Alg = "ES384" | "RS384";

async function clientKeys(alg: Alg) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = crypto.randomUUID();
  return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } as JWK };
}

async function register(t: Tenant, alg: Alg = "ES384", scopes = ["system/Patient.rs", "system/Observation.read"]) {
  const keys = await clientKeys(alg);
  const res = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "Lab backend", jwks: { keys: [keys.jwk] }, scopes } });
  expect(res.status).toBe(201);
  const client = (await res.json()) as { id: string; scopes: string[] };
  return { ...keys, alg, id: client.id };
}

type Client = Awaited<ReturnType<typeof register>>;
const tokenUrl = (orgId: string) => `http://localhost/fhir/r4/${orgId}/auth/token`;

function assertion(client: Client, aud: string, opts: { jti?: string; expIn?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: client.alg, kid: client.kid, typ: "JWT" })
    .setIssuer(client.id)
    .setSubject(client.id)
    .setAudience(aud)
    .setExpirationTime(now + (opts.expIn ?? 240))
    .setJti(opts.jti ?? crypto.randomUUID())
    .sign(client.privateKey);
}

function requestToken(orgId: string, clientAssertion: string, scope = "system/Patient.rs") {
  const body = new URLSearchParams({
    grant_type: "client_credentials",
    client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    client_assertion: clientAssertion,
    scope,
  });
  return call(`/fhir/r4/${orgId}/auth/token`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
}

async function tokenFor(t: Tenant, client: Client, scope?: string) {
  const res = await requestToken(t.orgId, await assertion(client, tokenUrl(t.orgId)), scope);
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("SMART Backend Services", () => {
  it("issues a token for a signed ES384 assertion, and the token reads a Patient", async () => {
    const t = await createTenant();
    const created = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Smart" }] } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const client = await register(t);
    const token = await tokenFor(t, client);
    expect(token).toMatchObject({ token_type: "Bearer", expires_in: 300, scope: "system/Patient.rs" });
    // No X-Organization-ID: the URL names the org.
    const read = await call(`/fhir/r4/${t.orgId}/Patient/${id}`, bearer(token.access_token));
    expect(read.status).toBe(200);
    expect(((await read.json()) as { name: { family: string }[] }).name[0]!.family).toBe("Smart");
    // The org's JWK Set publishes the key that verifies it.
    const jwks = (await (await call(`/fhir/r4/${t.orgId}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty("d");
  });

  it("holds a token to its granted scopes: system/Patient.rs reads and searches Patients only, and writes nothing", async () => {
    const t = await createTenant();
    const patient = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Scoped" }] } })).json()) as { id: string };
    const obs = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, {
      method: "POST",
      json: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: `Patient/${patient.id}` } },
    });
    expect(obs.status).toBe(201);
    const { id: obsId } = (await obs.json()) as { id: string };
    const { access_token } = await tokenFor(t, await register(t), "system/Patient.rs");
    const withToken = (path: string, init: RequestInit = {}) => call(`/fhir/r4/${t.orgId}${path}`, { ...init, headers: { authorization: `Bearer ${access_token}`, "content-type": "application/fhir+json", ...init.headers } });
    expect((await withToken(`/Patient?family=Scoped`)).status).toBe(200);
    // A read outside the grant looks like an absent resource; a search of a type no scope names is refused.
    expect((await withToken(`/Observation/${obsId}`)).status).toBe(404);
    const search = await withToken(`/Observation?subject=Patient/${patient.id}`);
    expect(search.status).toBe(403);
    expect(JSON.stringify(await search.json())).toContain("do not grant system/Observation.s");
    const write = await withToken(`/Patient`, { method: "POST", body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Nope" }] }) });
    expect(write.status).toBe(403);
    // The data is unchanged and still there for the API key.
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Observation/${obsId}`)).status).toBe(200);
    expect(((await (await t.fetch(`/fhir/r4/${t.orgId}/Patient?family=Nope`)).json()) as { total?: number; entry?: unknown[] }).entry ?? []).toHaveLength(0);
  });

  it("runs a Bulk Data export as the token's grant allows, for that client alone", async () => {
    const t = await createTenant();
    const patient = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Bulk" }] } })).json()) as { id: string };
    const obs = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", json: { resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${patient.id}` } } });
    expect(obs.status).toBe(201);
    const client = await register(t);
    const { access_token } = await tokenFor(t, client, "system/Patient.rs");
    const kickoff = await call(`/fhir/r4/${t.orgId}/$export`, { headers: { authorization: `Bearer ${access_token}`, accept: "application/fhir+json", prefer: "respond-async" } });
    expect(kickoff.status).toBe(202);
    const statusPath = new URL(kickoff.headers.get("content-location")!).pathname;
    await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, statusPath.split("/").pop()!));
    const done = await call(statusPath, bearer(access_token));
    expect(done.status).toBe(200);
    // The job read as the token: its Patients, none of the Observations the grant does not reach.
    const manifest = (await done.json()) as { requiresAccessToken: boolean; output: { type: string; count: number; url: string }[] };
    expect(manifest.requiresAccessToken).toBe(true);
    expect(manifest.output.filter((o) => o.count > 0).map((o) => [o.type, o.count])).toEqual([["Patient", 1]]);
    expect((await call(new URL(manifest.output[0]!.url).pathname, bearer(access_token))).status).toBe(200);
    expect((await call(new URL(manifest.output[0]!.url).pathname)).status).toBe(401);
    // Another client of the org sees neither the status nor the files.
    const other = await tokenFor(t, await register(t), "system/Patient.rs");
    expect((await call(statusPath, bearer(other.access_token))).status).toBe(404);
    expect((await call(new URL(manifest.output[0]!.url).pathname, bearer(other.access_token))).status).toBe(404);
  });

  it("refuses a token once it has expired, though this isolate verified it before", async () => {
    const t = await createTenant();
    const { access_token } = await tokenFor(t, await register(t));
    const base = `http://localhost/fhir/r4/${t.orgId}`;
    const principal = await verifyAccessToken(controlStore(env), env, access_token, t.orgId, base);
    expect(principal.client).toBeDefined();
    // Cached now; five minutes and a second later it is refused all the same.
    await expect(verifyAccessToken(controlStore(env), env, access_token, t.orgId, base, Date.now() + 301_000)).rejects.toBeInstanceOf(InvalidToken);
    // Another org's base never takes it, cached or not.
    await expect(verifyAccessToken(controlStore(env), env, access_token, "another-org", `http://localhost/fhir/r4/another-org`)).rejects.toBeInstanceOf(InvalidToken);
  });

  it("accepts an RS384 client too", async () => {
    const t = await createTenant();
    const client = await register(t, "RS384");
    const token = await tokenFor(t, client);
    expect((await call(`/fhir/r4/${t.orgId}/Patient`, bearer(token.access_token))).status).toBe(200);
  });

  it("refuses a replayed jti, an exp over five minutes ahead and a wrong aud as invalid_client", async () => {
    const t = await createTenant();
    const client = await register(t);
    const signed = await assertion(client, tokenUrl(t.orgId), { jti: "once" });
    expect((await requestToken(t.orgId, signed)).status).toBe(200);
    const replay = await requestToken(t.orgId, signed);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: "invalid_client" });
    const far = await requestToken(t.orgId, await assertion(client, tokenUrl(t.orgId), { expIn: 600 }));
    expect(far.status).toBe(401);
    expect(await far.json()).toMatchObject({ error: "invalid_client" });
    const wrongAud = await requestToken(t.orgId, await assertion(client, "https://elsewhere.example/token"));
    expect(wrongAud.status).toBe(401);
    expect(await wrongAud.json()).toMatchObject({ error: "invalid_client" });
  });

  it("refuses a scope beyond the registration as invalid_scope, and a bad grant as invalid_request", async () => {
    const t = await createTenant();
    const client = await register(t);
    const res = await requestToken(t.orgId, await assertion(client, tokenUrl(t.orgId)), "system/Patient.rs system/Patient.cruds");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "invalid_scope" });
    const garbage = await call(`/fhir/r4/${t.orgId}/auth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password" }), headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { error: string }).error).toMatch(/invalid_request|unsupported_grant_type/);
  });

  it("keeps a client and its tokens to its own org", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const client = await register(a);
    // A's client at B's token endpoint (with B's aud) is unknown there.
    const atB = await requestToken(b.orgId, await assertion(client, tokenUrl(b.orgId)));
    expect(atB.status).toBe(401);
    expect(await atB.json()).toMatchObject({ error: "invalid_client" });
    expect((await b.fetch(`/api/v1/client-applications/${client.id}`)).status).toBe(404);
    const token = await tokenFor(a, client);
    await tokenFor(b, await register(b)); // B has signing keys of its own
    const atOtherOrg = await call(`/fhir/r4/${b.orgId}/Patient`, bearer(token.access_token));
    expect(atOtherOrg.status).toBe(401);
    expect(atOtherOrg.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("does not take an access token on /api, nor an expired or forged one on /fhir", async () => {
    const t = await createTenant();
    const client = await register(t);
    const token = await tokenFor(t, client);
    const api = await call("/api/v1/client-applications", { headers: { authorization: `Bearer ${token.access_token}`, "x-organization-id": t.orgId } });
    expect(api.status).toBe(401);
    const [h, p] = token.access_token.split(".");
    const forged = await call(`/fhir/r4/${t.orgId}/Patient`, bearer(`${h}.${p}.AAAA`));
    expect(forged.status).toBe(401);
    expect(forged.headers.get("www-authenticate")).toContain('error="invalid_token"');
    // API keys work as before.
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`)).status).toBe(200);
  });

  it("fetches a jwks_url through the outbound guard: a refused destination is never contacted, and the assertion is invalid_client", async () => {
    const t = await createTenant();
    const keys = await clientKeys("ES384");
    // 127.0.0.2 stands in for a forbidden target (the suite allows only 127.0.0.1).
    const res = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "Remote keys", jwks_url: "https://127.0.0.2/jwks.json", scopes: ["system/Patient.rs"] } });
    expect(res.status).toBe(201);
    const client = { ...keys, alg: "ES384" as const, id: ((await res.json()) as { id: string }).id };
    const refused = await requestToken(t.orgId, await assertion(client, tokenUrl(t.orgId)));
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_client");
    expect(body.error_description).toMatch(/jwks_url could not be read: .*(not allowed|refused|private|loopback)/i);
  });

  it("manages client applications: validation, list, patch, delete", async () => {
    const t = await createTenant();
    const { jwk } = await clientKeys("ES384");
    const privateKey = await generateKeyPair("ES384", { extractable: true }).then((k) => exportJWK(k.privateKey));
    const bad = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "x", jwks: { keys: [privateKey] }, scopes: ["system/Patient.rs"] } });
    expect(bad.status).toBe(422);
    const badScope = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "x", jwks: { keys: [jwk] }, scopes: ["patient/Patient.rs"] } });
    expect(badScope.status).toBe(422);
    const client = await register(t);
    const list = (await (await t.fetch("/api/v1/client-applications")).json()) as { client_applications: { id: string }[]; total_count: number };
    expect(list.client_applications.map((c) => c.id)).toEqual([client.id]);
    const patched = await t.fetch(`/api/v1/client-applications/${client.id}`, { method: "PATCH", json: { status: "disabled" } });
    expect(((await patched.json()) as { status: string }).status).toBe("disabled");
    const refused = await requestToken(t.orgId, await assertion(client, tokenUrl(t.orgId)));
    expect(refused.status).toBe(401);
    expect((await t.fetch(`/api/v1/client-applications/${client.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await t.fetch(`/api/v1/client-applications/${client.id}`)).status).toBe(404);
    // Clinicians do not manage clients.
    const clinician = await createTenant({ role: "clinician" });
    expect((await clinician.fetch("/api/v1/client-applications")).status).toBe(403);
  });
});
