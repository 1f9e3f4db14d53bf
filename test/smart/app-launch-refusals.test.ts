// App Launch's refusals, each as the specs name it, audited, and granting nothing: requests that
// cannot go back to the app are an error page (never a redirect), the rest go back as `error`;
// the token endpoint's invalid_grant / invalid_client / invalid_request / unauthorized_client; the
// consent form's CSRF guard; a replayed code revoking what it issued; and every credential
// confined to its organization.
import { MedplumClient } from "@medplum/core";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually";
import { call, createTenant, type Tenant } from "../support/tenants";
import {
  approvedCode,
  authorize,
  authorizeUrl,
  bearer,
  consentForm,
  decide,
  exchange,
  oauthError,
  pkce,
  REDIRECT,
  redirectParams,
  refresh,
  registerApp,
  quickUser,
  token,
  tokensOf,
} from "./launch-support";

async function auditEvents(t: Tenant, action: string, done: (l: { outcome: string; outcomeDesc?: string }[]) => boolean) {
  return eventually(async () => ((await (await t.fetch(`/api/audit?action=${action}`)).json()) as { audit_events: { outcome: string; outcomeDesc?: string }[] }).audit_events, done);
}

describe("the authorization endpoint's refusals", () => {
  it("an unknown client or an unregistered redirect_uri is an error page, never a redirect; the rest redirect with error and state", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const app = await registerApp(t, { scopes: ["launch/patient", "patient/Patient.rs"] });
    const { challenge } = await pkce();
    const page = async (path: string, status = 400) => {
      const res = await authorize(path, user.cookie);
      expect(res.status).toBe(status);
      expect(res.headers.get("location")).toBeNull();
      return res.text();
    };
    expect(await page(authorizeUrl(t, app, { challenge, scope: "patient/Patient.rs", redirectUri: "https://evil.example/cb" }))).toContain("Unregistered redirect_uri");
    expect(await page(authorizeUrl(t, app, { challenge, scope: "patient/Patient.rs", redirectUri: `${REDIRECT}/more` }))).toContain("Unregistered redirect_uri");
    expect(await page(authorizeUrl(t, { ...app, id: "no-such-client" }, { challenge, scope: "patient/Patient.rs" }))).toContain("Unknown app");
    // Even a signed-out browser sees the page (no sign-in detour for a request that can go nowhere).
    expect((await authorize(authorizeUrl(t, app, { challenge, redirectUri: "https://evil.example/cb" }))).status).toBe(400);

    const refused = async (o: Parameters<typeof authorizeUrl>[2], error: string) => {
      const params = redirectParams(await authorize(authorizeUrl(t, app, o), user.cookie));
      expect(params.get("error"), params.get("error_description") ?? "").toBe(error);
      expect(params.get("state")).toBe(o.state ?? "st-123");
      expect(params.get("code")).toBeNull();
      return params.get("error_description") ?? "";
    };
    expect(await refused({ challenge, scope: "patient/Patient.rs", method: "plain" }, "invalid_request")).toContain("S256");
    expect(await refused({ challenge: "", scope: "patient/Patient.rs" }, "invalid_request")).toContain("code_challenge");
    expect(await refused({ challenge, scope: "patient/Patient.rs", aud: "https://other.example/fhir" }, "invalid_request")).toContain("aud");
    expect(await refused({ challenge, scope: "patient/Patient.rs patient/Observation.rs" }, "invalid_scope")).toContain("patient/Observation.rs");
    expect(await refused({ challenge, scope: "system/Patient.rs" }, "invalid_scope")).toBeTruthy();
    expect(await refused({ challenge, scope: "patient/Patient.rs", extra: { response_type: "token" } }, "unsupported_response_type")).toBeTruthy();
    expect(await refused({ challenge, scope: "launch patient/Patient.rs" }, "invalid_scope")).toBeTruthy();
    expect(await refused({ challenge, scope: "patient/Patient.rs", launch: "ln_unknown" }, "invalid_scope")).toContain("launch scope");
    // Audited, with the reason.
    const events = await auditEvents(t, "smart.authorize", (l) => l.filter((e) => e.outcome === "4").length >= 10);
    expect(events.some((e) => e.outcomeDesc?.includes("Unregistered redirect_uri"))).toBe(true);
    expect(events.some((e) => e.outcomeDesc?.includes("invalid_scope"))).toBe(true);
  });

  it("the consent form needs its CSRF token, this site and the same session", async () => {
    const t = await createTenant();
    const [user, other] = [await quickUser(t), await quickUser(t)];
    const app = await registerApp(t, { scopes: ["patient/Patient.rs"] });
    const { challenge } = await pkce();
    const form = consentForm(await (await authorize(authorizeUrl(t, app, { challenge, scope: "patient/Patient.rs" }), user.cookie)).text());
    expect((await decide(t, user.cookie, { ...form, csrf: `cf_${"A".repeat(43)}`, decision: "approve" })).status).toBe(403);
    expect((await decide(t, user.cookie, { ...form, decision: "approve" }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await decide(t, user.cookie, { ...form, decision: "approve" }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await decide(t, other.cookie, { ...form, decision: "approve" })).status).toBe(403);
    expect((await decide(t, "", { ...form, decision: "approve" })).status).toBe(403);
    // Still pending: the real form goes through.
    expect(redirectParams(await decide(t, user.cookie, { ...form, decision: "approve" })).get("code")).toBeTruthy();
  });

  it("an API key's console session cannot approve; a user signed in to another org sees so", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const app = await registerApp(a, { scopes: ["patient/Patient.rs"] });
    const { challenge } = await pkce();
    const keySession = ((await call("/api/v1/console/session", { method: "POST", json: { organization_id: a.orgId, api_key: a.key } })).headers.get("set-cookie") ?? "").split(";")[0]!;
    const asKey = await authorize(authorizeUrl(a, app, { challenge, scope: "patient/Patient.rs" }), keySession);
    expect(asKey.status).toBe(403);
    expect(await asKey.text()).toContain("Sign in as a user");
    const bUser = await quickUser(b);
    const elsewhere = await authorize(authorizeUrl(a, app, { challenge, scope: "patient/Patient.rs" }), bUser.cookie);
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.text()).toContain("another organization");
    // A's app at B's endpoint is unknown there.
    expect(await (await authorize(authorizeUrl(b, app, { challenge, scope: "patient/Patient.rs" }), bUser.cookie)).text()).toContain("Unknown app");
  });
});

describe("the token endpoint's refusals", () => {
  it("missing or wrong verifier, wrong redirect_uri, a replayed code (which revokes what it issued)", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const app = await registerApp(t, { scopes: ["patient/Patient.rs", "user/Patient.rs", "offline_access"] });
    const scope = "user/Patient.rs offline_access";
    const c1 = await approvedCode(t, app, user, { scope });
    await oauthError(await token(t, { grant_type: "authorization_code", code: c1.code, redirect_uri: REDIRECT, client_id: app.id }), 400, "invalid_request");
    await oauthError(await exchange(t, app, c1.code, (await pkce()).verifier), 400, "invalid_grant");
    // The code is spent by the failed attempt: single use.
    await oauthError(await exchange(t, app, c1.code, c1.verifier), 400, "invalid_grant");

    const c2 = await approvedCode(t, app, user, { scope });
    await oauthError(await exchange(t, app, c2.code, c2.verifier, { redirect_uri: `${REDIRECT}?x=1` }), 400, "invalid_grant");

    const c3 = await approvedCode(t, app, user, { scope });
    const issued = await tokensOf(await exchange(t, app, c3.code, c3.verifier));
    expect((await call(`/fhir/r4/${t.orgId}/Patient`, bearer(issued.access_token))).status).toBe(200);
    const replay = await exchange(t, app, c3.code, c3.verifier);
    await oauthError(replay, 400, "invalid_grant");
    // RFC 6749 §4.1.2: what the code issued is revoked.
    expect((await call(`/fhir/r4/${t.orgId}/Patient`, bearer(issued.access_token))).status).toBe(401);
    await oauthError(await refresh(t, app, issued.refresh_token!), 400, "invalid_grant");

    await oauthError(await token(t, { grant_type: "password", username: "x", password: "y" }), 400, "unsupported_grant_type");
    // A parameter sent twice (RFC 6749 §3.1).
    const twice = `grant_type=authorization_code&code=${c3.code}&code_verifier=${c3.verifier}&redirect_uri=${encodeURIComponent(REDIRECT)}&client_id=${app.id}&client_id=${app.id}`;
    const repeated = await call(`/fhir/r4/${t.orgId}/auth/token`, { method: "POST", body: twice, headers: { "content-type": "application/x-www-form-urlencoded" } });
    await oauthError(repeated, 400, "invalid_request");
    // A public client cannot use client_credentials.
    await oauthError(await token(t, { grant_type: "client_credentials", scope: "system/Patient.rs", client_id: app.id }), 400, "unauthorized_client");
    const events = await auditEvents(t, "smart.token", (l) => l.filter((e) => e.outcome === "4").length >= 6 && l.some((e) => e.outcome === "0"));
    expect(events.some((e) => e.outcomeDesc?.includes("invalid_grant: The authorization code was used before"))).toBe(true);
  });

  it("confidential clients: no credential or a wrong secret is invalid_client (Basic answers its challenge); rotation replaces the secret", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const app = await registerApp(t, { type: "confidential", scopes: ["user/Patient.rs"] });
    const scope = "user/Patient.rs";
    const c1 = await approvedCode(t, app, user, { scope });
    await oauthError(await exchange(t, { ...app, type: "public" }, c1.code, c1.verifier), 401, "invalid_client");
    const wrong = await exchange(t, { ...app, secret: `cs_${"B".repeat(43)}` }, c1.code, c1.verifier);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic realm="http:\/\/localhost\/fhir\/r4\//);
    await oauthError(wrong, 401, "invalid_client");
    // client_secret_post works too.
    await tokensOf(await token(t, { grant_type: "authorization_code", code: c1.code, code_verifier: c1.verifier, redirect_uri: REDIRECT, client_id: app.id, client_secret: app.secret! }));

    const rotated = await t.fetch(`/api/v1/client-applications/${app.id}/secret`, { method: "POST" });
    expect(rotated.status).toBe(200);
    const { client_secret } = (await rotated.json()) as { client_secret: string };
    expect(client_secret).toMatch(/^cs_/);
    expect(client_secret).not.toBe(app.secret);
    const listed = await (await t.fetch(`/api/v1/client-applications/${app.id}`)).json();
    expect(JSON.stringify(listed)).not.toContain(client_secret);
    const c2 = await approvedCode(t, app, user, { scope });
    await oauthError(await exchange(t, app, c2.code, c2.verifier), 401, "invalid_client");
    await tokensOf(await exchange(t, { ...app, secret: client_secret }, c2.code, c2.verifier));
    // A public client has no secret to rotate.
    const pub = await registerApp(t, { scopes: ["user/Patient.rs"] });
    expect((await t.fetch(`/api/v1/client-applications/${pub.id}/secret`, { method: "POST" })).status).toBe(409);
  });

  it("a revoked refresh token, and a disabled client's", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const app = await registerApp(t, { scopes: ["user/Patient.rs", "offline_access"] });
    const c = await approvedCode(t, app, user, { scope: "user/Patient.rs offline_access" });
    const issued = await tokensOf(await exchange(t, app, c.code, c.verifier));
    const revoked = await call(`/fhir/r4/${t.orgId}/auth/revoke`, { method: "POST", body: new URLSearchParams({ token: issued.refresh_token!, client_id: app.id }), headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(revoked.status).toBe(200);
    await oauthError(await refresh(t, app, issued.refresh_token!), 400, "invalid_grant");

    const c2 = await approvedCode(t, app, user, { scope: "user/Patient.rs offline_access" });
    const issued2 = await tokensOf(await exchange(t, app, c2.code, c2.verifier));
    expect((await t.fetch(`/api/v1/client-applications/${app.id}`, { method: "PATCH", json: { status: "disabled" } })).status).toBe(200);
    await oauthError(await refresh(t, app, issued2.refresh_token!), 401, "invalid_client");
    expect((await call(`/fhir/r4/${t.orgId}/Patient`, bearer(issued2.access_token))).status).toBe(401);
  });
});

describe("registration", () => {
  it("refuses what could never work: plain-http redirect URIs, a public client with keys or client_credentials, app scopes on a backend", async () => {
    const t = await createTenant();
    const post = (json: Record<string, unknown>) => t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "x", ...json } });
    expect((await post({ type: "public", redirect_uris: ["http://app.example/cb"], scopes: ["patient/Patient.rs"] })).status).toBe(422);
    expect((await post({ type: "public", redirect_uris: ["https://app.example/cb#frag"], scopes: ["patient/Patient.rs"] })).status).toBe(422);
    expect((await post({ type: "public", grant_types: ["client_credentials"], scopes: ["system/Patient.rs"] })).status).toBe(422);
    expect((await post({ type: "public", redirect_uris: ["https://app.example/cb"], scopes: ["system/Patient.rs"] })).status).toBe(422);
    expect((await post({ type: "public", redirect_uris: ["https://app.example/cb"], scopes: ["patient/Observation.rs?color=red"] })).status).toBe(422);
    expect((await post({ type: "public", redirect_uris: ["https://app.example/cb"], grant_types: ["refresh_token"], scopes: ["patient/Patient.rs"] })).status).toBe(422);
    const loopback = await post({ type: "public", redirect_uris: ["http://127.0.0.1:8765/cb", "http://localhost/cb"], scopes: ["patient/Patient.rs", "launch/patient"] });
    expect(loopback.status).toBe(201);
    expect(await loopback.json()).toMatchObject({ kind: "app", type: "public", grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_methods: ["none"] });
    const secretBackend = await post({ scopes: ["system/Patient.rs"] });
    expect(secretBackend.status).toBe(201);
    const backend = (await secretBackend.json()) as { id: string; client_secret: string; kind: string; token_endpoint_auth_methods: string[] };
    expect(backend).toMatchObject({ kind: "backend", token_endpoint_auth_methods: ["client_secret_basic", "client_secret_post"] });
    // A launch URI needs the authorization_code grant, on create and on update (so every app the console offers to launch can be).
    expect((await post({ scopes: ["system/Patient.rs"], launch_uri: "https://app.example/launch" })).status).toBe(422);
    const patched = await t.fetch(`/api/v1/client-applications/${backend.id}`, { method: "PATCH", json: { launch_uri: "https://app.example/launch" } });
    expect(patched.status).toBe(422);
    expect(await patched.json()).toMatchObject({ error: { code: "UNPROCESSABLE", details: [{ path: "launch_uri" }] } });
    // A symmetric backend client gets client_credentials tokens with its secret.
    const cc = await tokensOf(await token(t, { grant_type: "client_credentials", scope: "system/Patient.rs" }, { authorization: `Basic ${btoa(`${backend.id}:${backend.client_secret}`)}` }));
    expect((await call(`/fhir/r4/${t.orgId}/Patient`, bearer(cc.access_token))).status).toBe(200);
  });

  it("client_credentials without a scope grants the client's registered system/ scopes (RFC 6749 §3.3), as MedplumClient's startClientLogin asks", async () => {
    const t = await createTenant();
    const created = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "Medplum bot", scopes: ["system/Patient.rs", "system/Observation.read"] } });
    expect(created.status).toBe(201);
    const backend = (await created.json()) as { id: string; client_secret: string };
    // The real MedplumClient: its startClientLogin posts grant_type, client_id and client_secret, no scope.
    const sent: string[] = [];
    const medplum = new MedplumClient({
      baseUrl: "http://localhost/",
      fhirUrlPath: `fhir/r4/${t.orgId}`,
      tokenUrl: `http://localhost/fhir/r4/${t.orgId}/auth/token`,
      fetch: async (url: string, init?: RequestInit) => {
        if (typeof init?.body === "string") sent.push(init.body);
        return call(new URL(url).pathname + new URL(url).search, init);
      },
    });
    await medplum.startClientLogin(backend.id, backend.client_secret);
    expect(new URLSearchParams(sent[0]).has("scope")).toBe(false);
    const claims = JSON.parse(atob((medplum.getAccessToken() ?? "").split(".")[1]?.replace(/-/g, "+").replace(/_/g, "/") ?? "")) as { scope: string; client_id: string };
    expect(claims).toMatchObject({ scope: "system/Patient.rs system/Observation.read", client_id: backend.id });
    const bundle = await medplum.search("Patient");
    expect(bundle.resourceType).toBe("Bundle");
    // Held to the default: no writes.
    await expect(medplum.createResource({ resourceType: "Patient" })).rejects.toThrow();

    // A plain request, no scope: the same default; a scope given is still held to the registration.
    const plain = (form: Record<string, string>) =>
      call(`/fhir/r4/${t.orgId}/auth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", ...form }), headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${backend.id}:${backend.client_secret}`)}` } });
    expect(((await (await plain({})).json()) as { scope: string }).scope).toBe("system/Patient.rs system/Observation.read");
    expect(((await (await plain({ scope: "system/Patient.rs" })).json()) as { scope: string }).scope).toBe("system/Patient.rs");
    expect(await (await plain({ scope: "system/Patient.cruds" })).json()).toMatchObject({ error: "invalid_scope" });

    // Another organization's token endpoint does not know this client, scope or none.
    const b = await createTenant();
    const atB = await call(`/fhir/r4/${b.orgId}/auth/token`, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", client_id: backend.id, client_secret: backend.client_secret }), headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(atB.status).toBe(401);
    expect(await atB.json()).toMatchObject({ error: "invalid_client" });
  });
});

describe("cross-tenant", () => {
  it("org A's code, refresh token and client fail at org B's endpoints", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const user = await quickUser(a);
    const appA = await registerApp(a, { scopes: ["user/Patient.rs", "offline_access"] });
    const appB = await registerApp(b, { scopes: ["user/Patient.rs", "offline_access"] });
    const scope = "user/Patient.rs offline_access";
    const c = await approvedCode(a, appA, user, { scope });
    // A's client is unknown at B; B's client holds no A code.
    await oauthError(await exchange(b, appA, c.code, c.verifier), 401, "invalid_client");
    await oauthError(await exchange(b, appB, c.code, c.verifier), 400, "invalid_grant");
    // The code still works at A (it was never A's to spend at B).
    const issued = await tokensOf(await exchange(a, appA, c.code, c.verifier));
    await oauthError(await refresh(b, appB, issued.refresh_token!), 400, "invalid_grant");
    await oauthError(await refresh(b, appA, issued.refresh_token!), 401, "invalid_client");
    // A's access token at B's FHIR endpoint, and B's introspection: nothing.
    expect((await call(`/fhir/r4/${b.orgId}/Patient`, bearer(issued.access_token))).status).toBe(401);
    const introspected = await call(`/fhir/r4/${b.orgId}/auth/introspect`, { method: "POST", body: new URLSearchParams({ token: issued.access_token }), headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${b.key}` } });
    expect(await introspected.json()).toEqual({ active: false });
    // A's key is no management key at B.
    const foreignKey = await call(`/fhir/r4/${b.orgId}/auth/introspect`, { method: "POST", body: new URLSearchParams({ token: issued.access_token }), headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Bearer ${a.key}` } });
    expect(foreignKey.status).toBe(401);
    // Still fine at A.
    expect((await tokensOf(await refresh(a, appA, issued.refresh_token!))).refresh_token).toBeDefined();
    expect((await call(`/fhir/r4/${a.orgId}/Patient`, bearer(issued.access_token))).status).toBe(200);
  });
});
