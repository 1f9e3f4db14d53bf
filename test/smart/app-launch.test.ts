// SMART App Launch 2.x end to end, with a real console session: a user signs in with a password,
// an app asks for access, the consent screen shows it in words, the user approves (picking the
// patient for a standalone launch/patient) or denies, the app exchanges its code with PKCE, and
// the access token reads only the launch patient's data. EHR launch through the launches API,
// id_token verified against the org's JWK Set, refresh rotation with reuse detection, offline vs
// online access, introspection and revocation.
import { createLocalJWKSet, type JWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/tenants";
import {
  approvedCode,
  authorize,
  authorizeUrl,
  base,
  basic,
  bearer,
  consentForm,
  decide,
  exchange,
  oauthError,
  pkce,
  redirectParams,
  refresh,
  registerApp,
  quickSession,
  quickUser,
  signedInUser,
  tokensOf,
  twoPatients,
} from "./launch-support";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("standalone launch", () => {
  // A real invitation and password sign-in: two scrypt hashes, ~2 s each in workerd, far more on a busy machine.
  it("signs in, consents with a picked patient, exchanges the code with PKCE; the token reads only that patient's data", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    const { mine, other } = await twoPatients(t);
    const user = await signedInUser(t, "clinician", { fhir_user: "Practitioner/pr-1" });
    const app = await registerApp(t);
    const { challenge, verifier } = await pkce();
    const url = authorizeUrl(t, app, { challenge, nonce: "n-0S6" });

    // Signed out: to the console's sign-in, which brings the person back here.
    const signedOut = await authorize(url);
    expect(signedOut.status).toBe(302);
    const signInAt = new URL(signedOut.headers.get("location") ?? "");
    expect(signInAt.pathname).toBe("/");
    expect(signInAt.searchParams.get("return_to")).toBe(url);

    const page = await authorize(url, user.cookie);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://app.example/callback");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    // The client's name, escaped; the scopes in words; a patient picker; no script.
    expect(html).toContain("Growth &lt;Chart&gt; &amp; Co asks for access");
    expect(html).not.toContain("<Chart>");
    expect(html).toContain("Read and search Observation records of the selected patient");
    expect(html).toContain("Keep access after you sign out");
    expect(html).toContain('type="search"');
    expect(html).not.toMatch(/<script|https?:\/\/(?!app\.example)[^"]*\.(css|js)/);
    const form = consentForm(html);

    // The search narrows the list; approving without a pick asks again.
    const search = await call(`/fhir/r4/${t.orgId}/auth/authorize/consent?request=${form.request}&q=Launch`, { headers: { cookie: user.cookie } });
    expect(search.status).toBe(200);
    const searched = await search.text();
    expect(searched).toContain(`value="${mine.patient}"`);
    expect(searched).not.toContain(`value="${other.patient}"`);
    const fresh = consentForm(searched);
    const unpicked = await decide(t, user.cookie, { ...fresh, decision: "approve" });
    expect(unpicked.status).toBe(200);
    const again = await unpicked.text();
    expect(again).toContain("Pick the patient to share");
    const approved = await decide(t, user.cookie, { ...consentForm(again), decision: "approve", patient: mine.patient });
    const params = redirectParams(approved);
    expect(params.get("state")).toBe("st-123");
    const code = params.get("code")!;

    const tokens = await tokensOf(await exchange(t, app, code, verifier));
    expect(tokens).toMatchObject({
      token_type: "Bearer",
      expires_in: 300,
      patient: mine.patient,
      fhirUser: "Practitioner/pr-1",
      need_patient_banner: true,
      scope: "launch/patient openid fhirUser offline_access patient/Patient.rs patient/Observation.rs",
    });
    expect(tokens.smart_style_url).toBe(`${base(t)}/auth/smart-style.json`);
    expect(tokens.refresh_token).toMatch(/^rt_/);
    expect(tokens.encounter).toBeUndefined();

    // The id_token verifies against the org's JWK Set.
    const jwks = (await (await call(`/fhir/r4/${t.orgId}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const { payload } = await jwtVerify(tokens.id_token!, createLocalJWKSet(jwks), { issuer: base(t), audience: app.id, algorithms: ["ES384"] });
    expect(payload).toMatchObject({ sub: user.id, fhirUser: "Practitioner/pr-1", nonce: "n-0S6" });
    const oidc = (await (await call(`/fhir/r4/${t.orgId}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    expect(oidc.issuer).toBe(base(t));
    expect((await call(`/fhir/r4/${t.orgId}/auth/smart-style.json`)).status).toBe(200);

    // patient/Observation.rs and patient/Patient.rs: the launch patient's compartment only, read-only.
    const fhir = (path: string, init: RequestInit = {}) => call(`/fhir/r4/${t.orgId}${path}`, { ...init, headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/fhir+json" } });
    expect((await fhir(`/Patient/${mine.patient}`)).status).toBe(200);
    expect((await fhir(`/Observation/${mine.observation}`)).status).toBe(200);
    expect((await fhir(`/Patient/${other.patient}`)).status).toBe(404);
    expect((await fhir(`/Observation/${other.observation}`)).status).toBe(404);
    const bundle = (await (await fhir("/Observation")).json()) as { entry?: { resource: { id: string } }[] };
    expect((bundle.entry ?? []).map((e) => e.resource.id)).toEqual([mine.observation]);
    expect((await fhir("/Observation", { method: "POST", body: JSON.stringify({ resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: `Patient/${mine.patient}` } }) })).status).toBe(403);
    // The FHIR store's AuditEvents name the person and the app.
    expect((await fhir("/Encounter")).status).toBe(403);
  });

  it("Deny sends the app error=access_denied with its state, and no code", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const app = await registerApp(t);
    const { challenge } = await pkce();
    const page = await authorize(authorizeUrl(t, app, { challenge, scope: "patient/Patient.rs", state: "deny-me" }), user.cookie);
    const form = consentForm(await page.text());
    const params = redirectParams(await decide(t, user.cookie, { ...form, decision: "deny" }));
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("state")).toBe("deny-me");
    expect(params.get("code")).toBeNull();
    // Decided once: the form cannot approve afterwards.
    expect((await decide(t, user.cookie, { ...form, decision: "approve" })).status).toBe(400);
    const audited = await t.fetch("/api/audit?action=smart.authorize");
    expect(audited.status).toBe(200);
  });
});

describe("EHR launch", () => {
  it("the launches API binds the open patient and encounter to the authorization; a confidential client exchanges with its secret", async () => {
    const t = await createTenant();
    const { mine } = await twoPatients(t);
    const enc = (await (await t.fetch(`/fhir/r4/${t.orgId}/Encounter`, { method: "POST", json: { resourceType: "Encounter", status: "in-progress", class: { code: "AMB" }, subject: { reference: `Patient/${mine.patient}` } } })).json()) as { id: string };
    const user = await quickUser(t);
    const app = await registerApp(t, { type: "confidential", launch: true });
    expect(app.secret).toMatch(/^cs_/);

    // The console's "Launch app" (the user's session, the console's CSRF header).
    const launched = await call("/api/v1/smart/launches", { method: "POST", json: { client_id: app.id, patient: mine.patient, encounter: enc.id }, headers: { cookie: user.cookie, "x-cdis-console": "1" } });
    expect(launched.status, await launched.clone().text()).toBe(201);
    const { launch, launch_url, iss } = (await launched.json()) as { launch: string; launch_url: string; iss: string };
    expect(iss).toBe(base(t));
    const opened = new URL(launch_url);
    expect(`${opened.origin}${opened.pathname}`).toBe("https://app.example/launch");
    expect(opened.searchParams.get("iss")).toBe(base(t));
    expect(opened.searchParams.get("launch")).toBe(launch);

    const scope = "launch openid fhirUser online_access patient/Patient.rs patient/Observation.rs";
    const { code, verifier } = await (async () => {
      const { verifier, challenge } = await pkce();
      const page = await authorize(authorizeUrl(t, app, { challenge, scope, launch }), user.cookie);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(`Patient/${mine.patient}`);
      expect(html).not.toContain('type="search"');
      const params = redirectParams(await decide(t, user.cookie, { ...consentForm(html), decision: "approve" }));
      return { code: params.get("code")!, verifier };
    })();
    // Without the secret: invalid_client.
    const noSecret = await exchange({ ...t }, { ...app, type: "public" }, code, verifier);
    await oauthError(noSecret, 401, "invalid_client");
    const tokens = await tokensOf(await exchange(t, app, code, verifier));
    expect(tokens).toMatchObject({ patient: mine.patient, encounter: enc.id, need_patient_banner: false });
    expect(tokens.refresh_token).toBeDefined();
    expect((await call(`/fhir/r4/${t.orgId}/Patient/${mine.patient}`, bearer(tokens.access_token))).status).toBe(200);

    // A launch works once.
    const { challenge } = await pkce();
    const reused = await authorize(authorizeUrl(t, app, { challenge, scope, launch }), user.cookie);
    expect(redirectParams(reused).get("error")).toBe("invalid_request");
    // An app without a launch_uri cannot be launched.
    const plain = await registerApp(t);
    expect((await t.fetch("/api/v1/smart/launches", { method: "POST", json: { client_id: plain.id, patient: mine.patient } })).status).toBe(422);
    // What the console offers the person: the launchable app only, names and launch URIs, to their org alone.
    const offered = await call("/api/v1/smart/launchable-apps", { headers: { cookie: user.cookie } });
    expect(offered.status).toBe(200);
    expect(await offered.json()).toEqual({ apps: [{ id: app.id, name: expect.any(String), launch_uri: "https://app.example/launch" }] });
    const other = await createTenant();
    expect(await (await other.fetch("/api/v1/smart/launchable-apps")).json()).toEqual({ apps: [] });
  });
});

describe("refresh tokens", () => {
  it("rotate on each use; a reused one revokes the grant, its newer refresh token and its access tokens", async () => {
    const t = await createTenant();
    const { mine } = await twoPatients(t);
    const user = await quickUser(t);
    const app = await registerApp(t);
    const { code, verifier } = await approvedCode(t, app, user, { patient: mine.patient });
    const first = await tokensOf(await exchange(t, app, code, verifier));
    const second = await tokensOf(await refresh(t, app, first.refresh_token!));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.patient).toBe(mine.patient);
    expect((await call(`/fhir/r4/${t.orgId}/Patient/${mine.patient}`, bearer(second.access_token))).status).toBe(200);

    // Narrowed, never widened; a refused refresh leaves the token usable.
    await oauthError(await refresh(t, app, second.refresh_token!, { scope: "patient/Patient.rs patient/Encounter.rs" }), 400, "invalid_scope");
    const narrowed = await tokensOf(await refresh(t, app, second.refresh_token!, { scope: "launch/patient patient/Patient.rs" }));
    expect(narrowed.scope).toBe("launch/patient patient/Patient.rs");
    const obs = await call(`/fhir/r4/${t.orgId}/Observation?patient=${mine.patient}`, bearer(narrowed.access_token));
    expect(obs.status).toBe(403);
    // The grant keeps its scopes: the next refresh may ask for Observation again.
    const widenedBack = await tokensOf(await refresh(t, app, narrowed.refresh_token!));
    expect(widenedBack.scope).toContain("patient/Observation.rs");

    // Reuse of an old one: invalid_grant, and the whole family is gone.
    await oauthError(await refresh(t, app, first.refresh_token!), 400, "invalid_grant");
    await oauthError(await refresh(t, app, widenedBack.refresh_token!), 400, "invalid_grant");
    const revoked = await call(`/fhir/r4/${t.orgId}/Patient/${mine.patient}`, bearer(widenedBack.access_token));
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toContain("invalid_token");
  });

  it("offline_access outlives the console session; online_access ends with it; a disabled user's grants end", async () => {
    const t = await createTenant();
    const { mine } = await twoPatients(t);
    const user = await quickUser(t);
    const app = await registerApp(t);
    const scopeOf = (kind: string) => `launch/patient ${kind} patient/Patient.rs`;
    const offline = await (async () => {
      const { code, verifier } = await approvedCode(t, app, user, { patient: mine.patient, scope: scopeOf("offline_access") });
      return tokensOf(await exchange(t, app, code, verifier));
    })();
    const online = await (async () => {
      const { code, verifier } = await approvedCode(t, app, user, { patient: mine.patient, scope: scopeOf("online_access") });
      return tokensOf(await exchange(t, app, code, verifier));
    })();
    const none = await (async () => {
      const { code, verifier } = await approvedCode(t, app, user, { patient: mine.patient, scope: "launch/patient patient/Patient.rs" });
      return tokensOf(await exchange(t, app, code, verifier));
    })();
    expect(none.refresh_token).toBeUndefined();
    const online2 = await tokensOf(await refresh(t, app, online.refresh_token!));

    // The user signs out of the console.
    expect((await call("/api/v1/console/session", { method: "DELETE", headers: { cookie: user.cookie, "x-cdis-console": "1" } })).status).toBe(204);
    await oauthError(await refresh(t, app, online2.refresh_token!), 400, "invalid_grant");
    const offline2 = await tokensOf(await refresh(t, app, offline.refresh_token!));

    // A new session, a new online grant; then the user is disabled: every grant of theirs ends.
    const cookie = await quickSession(t, user.id);
    const online3 = await (async () => {
      const { code, verifier } = await approvedCode(t, app, { ...user, cookie }, { patient: mine.patient, scope: scopeOf("online_access") });
      return tokensOf(await exchange(t, app, code, verifier));
    })();
    expect((await t.fetch(`/api/v1/users/${user.id}`, { method: "PATCH", json: { status: "disabled" } })).status).toBe(200);
    await oauthError(await refresh(t, app, online3.refresh_token!), 400, "invalid_grant");
    await oauthError(await refresh(t, app, offline2.refresh_token!), 400, "invalid_grant");
  });
});

describe("introspection and revocation", () => {
  it("a confidential client introspects its own tokens, a management key any; revocation ends the grant", async () => {
    const t = await createTenant();
    const { mine } = await twoPatients(t);
    const user = await quickUser(t);
    const app = await registerApp(t, { type: "confidential" });
    const otherApp = await registerApp(t, { type: "confidential" });
    const { code, verifier } = await approvedCode(t, app, user, { patient: mine.patient });
    const tokens = await tokensOf(await exchange(t, app, code, verifier));
    const op = (path: string, form: Record<string, string>, headers: Record<string, string>) =>
      call(`/fhir/r4/${t.orgId}/auth/${path}`, { method: "POST", body: new URLSearchParams(form), headers: { ...FORM, ...headers } });
    const introspect = async (tokenValue: string, headers: Record<string, string>) => {
      const res = await op("introspect", { token: tokenValue }, headers);
      expect(res.status, await res.clone().text()).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };

    expect(await introspect(tokens.access_token, basic(app))).toMatchObject({ active: true, client_id: app.id, sub: user.id, patient: mine.patient, scope: tokens.scope, token_type: "Bearer" });
    expect(await introspect(tokens.refresh_token!, basic(app))).toMatchObject({ active: true, client_id: app.id, token_type: "refresh_token" });
    // Another client: nothing to see. A management key: everything of its org.
    expect(await introspect(tokens.access_token, basic(otherApp))).toEqual({ active: false });
    expect(await introspect(tokens.access_token, { authorization: `Bearer ${t.key}` })).toMatchObject({ active: true });
    expect(await introspect("rt_not-a-token", basic(app))).toEqual({ active: false });
    // Unauthenticated: invalid_client (Basic with a wrong secret answers the Basic challenge).
    await oauthError(await op("introspect", { token: tokens.access_token }, {}), 401, "invalid_client");
    const wrong = await op("introspect", { token: tokens.access_token }, { authorization: `Basic ${btoa(`${app.id}:cs_${"x".repeat(43)}`)}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic realm=/);

    // Revoking the refresh token ends the grant: the refresh token at once, the access token too.
    expect((await op("revoke", { token: "rt_unknown" }, basic(app))).status).toBe(200);
    expect((await op("revoke", { token: tokens.refresh_token! }, basic(otherApp))).status).toBe(200);
    expect(await introspect(tokens.refresh_token!, basic(app))).toMatchObject({ active: true });
    expect((await op("revoke", { token: tokens.refresh_token! }, basic(app))).status).toBe(200);
    expect(await introspect(tokens.refresh_token!, basic(app))).toEqual({ active: false });
    expect(await introspect(tokens.access_token, basic(app))).toEqual({ active: false });
    await oauthError(await refresh(t, app, tokens.refresh_token!), 400, "invalid_grant");
    expect((await call(`/fhir/r4/${t.orgId}/Patient/${mine.patient}`, bearer(tokens.access_token))).status).toBe(401);

    // A public client revokes its own access token (its grant) with client_id alone.
    const pub = await registerApp(t);
    const p = await approvedCode(t, pub, user, { patient: mine.patient });
    const pubTokens = await tokensOf(await exchange(t, pub, p.code, p.verifier));
    expect((await op("revoke", { token: pubTokens.access_token, client_id: pub.id }, {})).status).toBe(200);
    await oauthError(await refresh(t, pub, pubTokens.refresh_token!), 400, "invalid_grant");
    // A public client may not introspect.
    await oauthError(await op("introspect", { token: pubTokens.access_token, client_id: pub.id }, {}), 401, "invalid_client");
  });
});

describe("access policies on a user's token", () => {
  it("acts under the person's access policy: Patients only, though the scopes grant Observations", async () => {
    const t = await createTenant();
    const { mine } = await twoPatients(t);
    const user = await quickUser(t);
    const app = await registerApp(t);
    const { code, verifier } = await approvedCode(t, app, user, { scope: "launch/patient patient/Patient.rs patient/Observation.rs", patient: mine.patient });
    const tokens = await tokensOf(await exchange(t, app, code, verifier));
    expect((await call(`/fhir/r4/${t.orgId}/Observation/${mine.observation}`, bearer(tokens.access_token))).status).toBe(200);

    const policy = (await (await t.fetch("/api/v1/access-policies", { method: "POST", json: { name: "Demographics", resources: [{ resource_type: "Patient", readonly: true }] } })).json()) as { id: string };
    expect((await t.fetch(`/api/v1/access-policies/${policy.id}/assignments/users/${user.id}`, { method: "PUT" })).status).toBe(200);
    // A new token reads the person's policy with its grant: the Patient, not the Observation.
    const again = await approvedCode(t, app, user, { scope: "launch/patient patient/Patient.rs patient/Observation.rs", patient: mine.patient });
    const restricted = await tokensOf(await exchange(t, app, again.code, again.verifier));
    expect((await call(`/fhir/r4/${t.orgId}/Patient/${mine.patient}`, bearer(restricted.access_token))).status).toBe(200);
    expect((await call(`/fhir/r4/${t.orgId}/Observation/${mine.observation}`, bearer(restricted.access_token))).status).toBe(404);
    expect((await call(`/fhir/r4/${t.orgId}/Observation?patient=${mine.patient}`, bearer(restricted.access_token))).status).toBe(403);
  });
});
