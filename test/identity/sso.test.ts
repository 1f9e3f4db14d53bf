// Single sign-on with OpenID Connect against a real IdP (oidc-provider, test/setup/oidc-idp.ts):
// each organization registers its own client at the IdP (dynamic registration) with its callback
// as redirect URI and configures the IdP through the management API; the test then drives the
// browser's part by hand (start → the IdP's authorize → its login form → its consent form → back to
// the callback) and the Worker does the rest: discovery, the code exchange with PKCE, the ID
// token's checks (issuer, audience, nonce, the signature against the IdP's JWKS), the user and
// the console session. Every refusal redirects to the console's sign-in page with its code, grants
// nothing and is in the organization's audit trail.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, inject, it } from "vitest";
import { identityProviders, ssoStates, users } from "../../src/features/identity/tables";
import { controlStore } from "../../src/platform/org-data";
import { eventually } from "../support/eventually";
import { call, createKey, createTenant, type Tenant } from "../support/tenants";

const issuer = inject("oidcIssuer");
const PASSWORD = "correct horse battery";

interface Client {
  client_id: string;
  client_secret: string;
  /** The identity provider configured with this client (configure()). */
  idpId?: string;
}

/** A client of the IdP for the organization, its callback registered, as an admin does at Okta or Entra ID. */
async function registerClient(orgId: string): Promise<Client> {
  const res = await fetch(`${issuer}/reg`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      redirect_uris: [`http://localhost/api/v1/auth/sso/${orgId}/callback`],
      post_logout_redirect_uris: ["http://localhost/?signed_out=sso"],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Client;
}

/** An account at the IdP (a fresh id unless `id` names one to change, so tests never share one). */
async function idpAccount(claims: Record<string, unknown>, id = `acct-${crypto.randomUUID()}`): Promise<string> {
  const res = await fetch(`${issuer}/_control/accounts`, { method: "POST", body: JSON.stringify({ id, claims }) });
  expect(res.status).toBe(204);
  return id;
}

/** The organization's own email domain. */
const domainOf = (t: Tenant) => `o${t.orgId.toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 16)}.example.org`;

/** The identity provider configure() last saved for each organization, which a second configure() replaces. */
const configured = new Map<string, string>();

/** Configures an identity provider of the organization: replaces the one configure() made, or adds one (`add`). */
async function configure(t: Tenant, overrides: Record<string, unknown> = {}, opts: { add?: boolean } = {}): Promise<Client> {
  const client = await registerClient(t.orgId);
  const existing = opts.add ? undefined : configured.get(t.orgId);
  const res = await t.fetch(existing ? `/api/v1/identity-providers/${existing}` : "/api/v1/identity-providers", {
    method: existing ? "PUT" : "POST",
    json: {
      display_name: "Sign in with Test IdP",
      issuer,
      client_id: client.client_id,
      client_secret: client.client_secret,
      scopes: ["openid", "email", "profile", "groups"],
      role_mapping: { claim: "groups", values: { "cdis-admins": "admin", "cdis-engineers": "integration_engineer" }, default: "clinician" },
      allowed_email_domains: [domainOf(t)],
      jit_provisioning: true,
      ...overrides,
    },
  });
  expect(res.status, await res.clone().text()).toBe(existing ? 200 : 201);
  const idpId = ((await res.json()) as { id: string }).id;
  if (!existing) configured.set(t.orgId, idpId);
  return { ...client, idpId };
}

type Jar = Map<string, string>;
const cookieHeader = (jar: Jar) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
function keep(jar: Jar, res: Response): void {
  for (const c of res.headers.getAll("set-cookie")) {
    const [pair = ""] = c.split(";");
    const at = pair.indexOf("=");
    jar.set(pair.slice(0, at), pair.slice(at + 1));
  }
}

/**
 * The browser at the IdP: from the authorization URL through the login form (as `login`) and the
 * consent form, or the login form's abort link, to the redirect back; answers the callback URL.
 */
async function atIdp(authorizeUrl: string, login: string, opts: { abort?: boolean; jar?: Jar; prompts?: string[] } = {}): Promise<URL> {
  const jar: Jar = opts.jar ?? new Map();
  let url = authorizeUrl;
  let form: string | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: { cookie: cookieHeader(jar), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      ...(form ? { body: form } : {}),
    });
    keep(jar, res);
    form = undefined;
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (next.origin === "http://localhost") return next;
      url = next.toString();
      continue;
    }
    const html = await res.text();
    expect(res.status, html.slice(0, 500)).toBe(200);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!prompt || !action) throw new Error(`not an interaction page: ${html.slice(0, 300)}`);
    opts.prompts?.push(prompt);
    if (opts.abort) {
      url = new URL(`${new URL(action, url).pathname}/abort`, url).toString();
      continue;
    }
    url = new URL(action, url).toString();
    form = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt }).toString();
  }
  throw new Error("the IdP did not redirect back");
}

interface Started {
  idpUrl: string;
  /** The cdis_sso cookie the start set, as a Cookie header. */
  browser: string;
}

async function start(orgId: string, query = "", browser?: string): Promise<Started> {
  const res = await call(`/api/v1/auth/sso/${orgId}/start${query}`, { redirect: "manual", ...(browser ? { headers: { cookie: browser } } : {}) });
  expect(res.status).toBe(302);
  const location = res.headers.get("location") ?? "";
  expect(location, location).toMatch(new RegExp(`^${issuer}/auth\\?`));
  const cookie = res.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(new RegExp(`^cdis_sso=[A-Za-z0-9_-]{43}; Path=/api/v1/auth/sso/${orgId}/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$`));
  return { idpUrl: location, browser: cookie.split(";")[0] ?? "" };
}

async function callback(back: URL, browser: string | undefined, orgId?: string) {
  const path = orgId ? back.pathname.replace(/\/sso\/[^/]+\//, `/sso/${orgId}/`) : back.pathname;
  const res = await call(`${path}${back.search}`, { redirect: "manual", ...(browser ? { headers: { cookie: browser } } : {}) });
  expect(res.status).toBe(302);
  const location = res.headers.get("location") ?? "";
  const session = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  return { location, session, error: new URL(location).searchParams.get("sso_error"), res };
}

/** Start, the IdP, the callback: one whole sign-in. */
async function signIn(orgId: string, login: string, opts: { abort?: boolean; returnTo?: string } = {}) {
  const s = await start(orgId, opts.returnTo ? `?return_to=${encodeURIComponent(opts.returnTo)}` : "");
  const back = await atIdp(s.idpUrl, login, opts);
  return { ...(await callback(back, s.browser)), back, browser: s.browser };
}

interface AuditEvent {
  outcome: string;
  outcomeDesc?: string;
  agent: { altId?: string; who: { identifier?: { value: string }; display?: string } }[];
  entity: { what?: { identifier: { value: string } }; detail?: { type: string; valueString: string }[] }[];
}

const auditOf = (t: Tenant, action: string, done: (l: AuditEvent[]) => boolean) =>
  eventually(async () => ((await (await t.fetch(`/api/audit?action=${action}&limit=100`)).json()) as { audit_events: AuditEvent[] }).audit_events, done);
const signInEvents = (t: Tenant, done: (l: AuditEvent[]) => boolean) => auditOf(t, "console_session.sign_in", done);
const refusedWith = (code: string) => (e: AuditEvent) => e.outcome === "4" && (e.outcomeDesc ?? "").startsWith(`${code}:`);

async function listUsers(t: Tenant) {
  return ((await (await t.fetch("/api/v1/users")).json()) as { users: Record<string, unknown>[]; total_count: number }).users;
}

describe("single sign-on: the round trip", () => {
  it("creates a user just in time with the mapped role, signs them in to the console, and finds the same user next time", async () => {
    const t = await createTenant();
    await configure(t);
    const email = `Dana@${domainOf(t).toUpperCase()}`;
    const login = await idpAccount({ email, email_verified: true, name: "Dana Admin", groups: ["staff", "cdis-admins"] });

    const first = await signIn(t.orgId, login, { returnTo: "/pipelines" });
    expect(first.error).toBeNull();
    expect(first.location).toBe("http://localhost/pipelines");
    expect(first.res.headers.get("set-cookie")).toMatch(/^cdis_session=sess_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/);
    expect(first.res.headers.get("cache-control")).toBe("no-store");
    const me = await call("/api/v1/console/session", { headers: { cookie: first.session } });
    expect(me.status).toBe(200);
    const view = (await me.json()) as { role: string; organization: { id: string }; user: { id: string; email: string } };
    expect(view).toMatchObject({ role: "admin", organization: { id: t.orgId }, user: { email: email.toLowerCase() } });
    // The session is a console session like any: an admin manages users with it.
    expect((await call("/api/v1/users", { headers: { cookie: first.session } })).status).toBe(200);

    const listed = await listUsers(t);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: view.user.id, email: email.toLowerCase(), name: "Dana Admin", role: "admin", status: "active", last_sign_in_method: "sso", identity_provider: issuer, external_subject: login, created_by: "sso" });
    expect(listed[0]?.last_sign_in_at).not.toBeNull();
    const [row] = await controlStore(env).select().from(users).where(eq(users.id, view.user.id));
    expect(row?.passwordHash).toBeNull();
    // The pending sign-in is gone once used.
    expect(await controlStore(env).select().from(ssoStates).where(eq(ssoStates.orgId, t.orgId))).toEqual([]);

    const second = await signIn(t.orgId, login);
    expect(second.error).toBeNull();
    expect(second.location).toBe("http://localhost/");
    expect(second.session).not.toBe(first.session);
    const again = (await (await call("/api/v1/console/session", { headers: { cookie: second.session } })).json()) as { user: { id: string } };
    expect(again.user.id).toBe(view.user.id);
    expect(await listUsers(t)).toHaveLength(1);

    const events = await signInEvents(t, (l) => l.filter((e) => e.outcome === "0").length >= 2);
    const ok = events.filter((e) => e.outcome === "0");
    expect(ok[0]?.agent[0]).toMatchObject({ altId: email.toLowerCase(), who: { identifier: { value: view.user.id } } });
    expect(Object.fromEntries((ok[0]?.entity[0]?.detail ?? []).map((d) => [d.type, d.valueString]))).toMatchObject({ sign_in_method: "sso", issuer, subject: login });
    const provisioned = await auditOf(t, "user.provision", (l) => l.length > 0);
    expect(provisioned).toHaveLength(1);
    expect(provisioned[0]?.entity[0]?.what?.identifier.value).toBe(view.user.id);
  });

  it("signs an existing user in by email and binds them to the IdP subject; another subject with that email is refused", async () => {
    const t = await createTenant();
    await configure(t, { jit_provisioning: false, allowed_email_domains: [] });
    const email = `lee@${domainOf(t)}`;
    const invited = await t.fetch("/api/v1/users/invitations", { method: "POST", json: { email, name: "Lee", role: "auditor" } });
    expect(invited.status).toBe(201);
    const user = (await invited.json()) as { id: string; invitation: { token: string } };
    const login = await idpAccount({ email, email_verified: true, groups: ["cdis-admins"] });

    const first = await signIn(t.orgId, login);
    expect(first.error).toBeNull();
    const me = (await (await call("/api/v1/console/session", { headers: { cookie: first.session } })).json()) as { role: string; user: { id: string } };
    // Their role stays the one the admin gave them (the mapping creates users; it syncs only when asked to).
    expect(me).toMatchObject({ role: "auditor", user: { id: user.id } });
    const [row] = (await listUsers(t)) as { status: string; external_subject: string }[];
    // An invited user who proves their email through the organization's IdP is active: the invitation is spent.
    expect(row).toMatchObject({ status: "active", external_subject: login });
    expect((await call("/api/v1/auth/invitations/accept", { method: "POST", json: { token: user.invitation.token, password: PASSWORD } })).status).toBe(400);

    // Another account at the IdP claiming the same email cannot take the user over.
    const impostor = await idpAccount({ email, email_verified: true });
    const refused = await signIn(t.orgId, impostor);
    expect(refused.error).toBe("SUBJECT_MISMATCH");
    expect(refused.session).toBe("");
    // The bound subject still signs in as the user, even after its email changed at the IdP.
    await idpAccount({ email: `lee.renamed@${domainOf(t)}` }, login);
    const renamed = await signIn(t.orgId, login);
    expect(renamed.error).toBeNull();
    expect(((await (await call("/api/v1/console/session", { headers: { cookie: renamed.session } })).json()) as { user: { id: string } }).user.id).toBe(user.id);

    // The admin forgets the binding: the next sign-in of that email binds again.
    expect((await t.fetch(`/api/v1/users/${user.id}`, { method: "PATCH", json: { identity_provider: null } })).status).toBe(200);
    expect((await signIn(t.orgId, impostor)).error).toBeNull();
    const [rebound] = (await listUsers(t)) as { external_subject: string }[];
    expect(rebound?.external_subject).toBe(impostor);

    const events = await signInEvents(t, (l) => l.some(refusedWith("SUBJECT_MISMATCH")));
    expect(events.find(refusedWith("SUBJECT_MISMATCH"))?.agent[0]?.altId).toBe(email);
  });

  it("with role sync, applies the mapping at every sign-in and refuses a user no value maps", async () => {
    const t = await createTenant();
    await configure(t, { role_mapping: { claim: "groups", values: { "cdis-engineers": "integration_engineer", "cdis-admins": "admin" }, default: null, sync: true } });
    const email = `kim@${domainOf(t)}`;
    const invited = await t.fetch("/api/v1/users/invitations", { method: "POST", json: { email, name: "Kim", role: "auditor" } });
    expect(invited.status).toBe(201);
    const engineer = await idpAccount({ email, groups: ["cdis-engineers"] });
    const signed = await signIn(t.orgId, engineer);
    expect(signed.error).toBeNull();
    expect(((await (await call("/api/v1/console/session", { headers: { cookie: signed.session } })).json()) as { role: string }).role).toBe("integration_engineer");
    const nobody = await idpAccount({ email: `nobody@${domainOf(t)}`, groups: ["staff"] });
    expect((await signIn(t.orgId, nobody)).error).toBe("NO_ROLE_MAPPED");
    expect(await listUsers(t)).toHaveLength(1);
  });
});

describe("single sign-on: refusals grant nothing and are audited", () => {
  it("a wrong state, a replayed state, a callback without the browser's cookie, org B's callback with org A's state", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await configure(a);
    await configure(b);
    const login = await idpAccount({ email: `ana@${domainOf(a)}`, email_verified: true, groups: ["cdis-admins"] });

    const wrong = await start(a.orgId);
    const wrongBack = await atIdp(wrong.idpUrl, login);
    wrongBack.searchParams.set("state", "not-the-state");
    const forged = await callback(wrongBack, wrong.browser);
    expect(forged).toMatchObject({ error: "STATE_INVALID", session: "" });
    expect(forged.location).toBe("http://localhost/?sso_error=STATE_INVALID");

    // Org A's state at org B's callback: B has no such pending sign-in, and A's stays usable.
    const s = await start(a.orgId);
    const back = await atIdp(s.idpUrl, login);
    expect((await callback(back, s.browser, b.orgId)).error).toBe("STATE_INVALID");
    // Without the cookie of the browser that started: refused, and the state is spent.
    const other = await start(a.orgId);
    const otherBack = await atIdp(other.idpUrl, login);
    expect((await callback(otherBack, undefined)).error).toBe("STATE_INVALID");
    expect((await callback(otherBack, other.browser)).error).toBe("STATE_INVALID");

    const done = await callback(back, s.browser);
    expect(done.error).toBeNull();
    expect(done.session).toMatch(/^cdis_session=sess_/);
    // Replayed: the state was used.
    const replayed = await callback(back, s.browser);
    expect(replayed).toMatchObject({ error: "STATE_INVALID", session: "" });

    // A's session is A's: it reaches nothing of B.
    expect((await call("/api/v1/users", { headers: { cookie: done.session, "x-organization-id": b.orgId } })).status).toBe(403);
    expect(await listUsers(b)).toEqual([]);

    const eventsA = await signInEvents(a, (l) => l.filter(refusedWith("STATE_INVALID")).length >= 4 && l.some((e) => e.outcome === "0"));
    expect(eventsA.filter(refusedWith("STATE_INVALID")).map((e) => e.outcomeDesc)).toEqual(
      expect.arrayContaining([expect.stringContaining("unknown or already used"), expect.stringContaining("not started in this browser")]),
    );
    const eventsB = await signInEvents(b, (l) => l.some(refusedWith("STATE_INVALID")));
    expect(eventsB.find(refusedWith("STATE_INVALID"))?.agent[0]?.who.identifier?.value).toBe("system:sso");
  });

  it("an ID token with another nonce, and one altered after the IdP signed it", async () => {
    const t = await createTenant();
    await configure(t);
    const email = `ned@${domainOf(t)}`;
    const login = await idpAccount({ email, email_verified: true, groups: ["cdis-engineers"] });

    // The authorization request's nonce swapped on its way to the IdP: the IdP signs a token for another nonce.
    const s = await start(t.orgId);
    const swapped = new URL(s.idpUrl);
    swapped.searchParams.set("nonce", "an-attackers-nonce");
    expect((await callback(await atIdp(swapped.toString(), login), s.browser)).error).toBe("NONCE_MISMATCH");

    // The token response's ID token with another email after signing: its signature no longer holds.
    const victim = `victim@${domainOf(t)}`;
    expect((await fetch(`${issuer}/_control/tamper-id-token`, { method: "POST", body: JSON.stringify({ email: victim }) })).status).toBe(204);
    const tampered = await signIn(t.orgId, login);
    expect(tampered.error).toBe("TOKEN_INVALID");
    expect(await listUsers(t)).toEqual([]);

    const events = await signInEvents(t, (l) => l.some(refusedWith("NONCE_MISMATCH")) && l.some(refusedWith("TOKEN_INVALID")));
    expect(events.find(refusedWith("TOKEN_INVALID"))?.outcomeDesc).toMatch(/signature/i);
  });

  it("the IdP's access_denied, a domain not allowed, no user without just-in-time provisioning, a disabled user, an unverified email", async () => {
    const t = await createTenant();
    await configure(t);
    const login = await idpAccount({ email: `una@${domainOf(t)}`, email_verified: true });

    expect((await signIn(t.orgId, login, { abort: true })).error).toBe("ACCESS_DENIED");
    const outsider = await idpAccount({ email: "eve@elsewhere.example.com", email_verified: true, groups: ["cdis-admins"] });
    expect((await signIn(t.orgId, outsider)).error).toBe("DOMAIN_NOT_ALLOWED");
    const unverified = await idpAccount({ email: `uri@${domainOf(t)}`, email_verified: false });
    expect((await signIn(t.orgId, unverified)).error).toBe("EMAIL_NOT_VERIFIED");

    const signed = await signIn(t.orgId, login);
    expect(signed.error).toBeNull();
    const [user] = (await listUsers(t)) as { id: string; role: string }[];
    expect(user?.role).toBe("clinician");
    expect((await t.fetch(`/api/v1/users/${user?.id}`, { method: "PATCH", json: { status: "disabled" } })).status).toBe(200);
    expect((await call("/api/organization", { headers: { cookie: signed.session } })).status).toBe(401);
    const disabled = await signIn(t.orgId, login);
    expect(disabled).toMatchObject({ error: "USER_DISABLED", session: "" });

    // Without just-in-time provisioning, a stranger from the allowed domain is not let in.
    await configure(t, { jit_provisioning: false });
    const stranger = await idpAccount({ email: `sam@${domainOf(t)}`, email_verified: true });
    expect((await signIn(t.orgId, stranger)).error).toBe("NOT_PROVISIONED");
    expect(await listUsers(t)).toHaveLength(1);

    const codes = ["ACCESS_DENIED", "DOMAIN_NOT_ALLOWED", "EMAIL_NOT_VERIFIED", "USER_DISABLED", "NOT_PROVISIONED"];
    const events = await signInEvents(t, (l) => codes.every((c) => l.some(refusedWith(c))));
    expect(codes.filter((c) => !events.some(refusedWith(c)))).toEqual([]);
    expect(events.find(refusedWith("USER_DISABLED"))?.agent[0]?.who.identifier?.value).toBe(user?.id);
    const detail = Object.fromEntries((events.find(refusedWith("DOMAIN_NOT_ALLOWED"))?.entity[0]?.detail ?? []).map((d) => [d.type, d.valueString]));
    expect(detail).toMatchObject({ sign_in_method: "sso", email: "eve@elsewhere.example.com", subject: outsider });
  });

  it("an organization without single sign-on, or that does not exist, and a disabled configuration", async () => {
    const t = await createTenant();
    const res = await call(`/api/v1/auth/sso/${t.orgId}/start`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://localhost/?sso_error=SSO_NOT_CONFIGURED");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await call("/api/v1/auth/sso/no-such-org/start", { redirect: "manual" })).headers.get("location")).toBe("http://localhost/?sso_error=SSO_NOT_CONFIGURED");
    expect((await call("/api/v1/auth/sso/no-such-org/callback?code=x&state=y", { redirect: "manual" })).headers.get("location")).toBe("http://localhost/?sso_error=STATE_INVALID");

    const { idpId } = await configure(t);
    const login = await idpAccount({ email: `ola@${domainOf(t)}` });
    const s = await start(t.orgId);
    const back = await atIdp(s.idpUrl, login);
    const current = (await (await t.fetch(`/api/v1/identity-providers/${idpId}`)).json()) as Record<string, unknown>;
    const { id: _i, client_secret_hint: _h, redirect_uri: _r, post_logout_redirect_uri: _p, start_url: _s, created_at: _c, updated_at: _u, updated_by: _b, ...body } = current;
    expect((await t.fetch(`/api/v1/identity-providers/${idpId}`, { method: "PUT", json: { ...body, enabled: false } })).status).toBe(200);
    expect((await callback(back, s.browser)).error).toBe("SSO_NOT_CONFIGURED");
    expect(((await (await call(`/api/v1/auth/sso/${t.orgId}`)).json()) as { enabled: boolean }).enabled).toBe(false);
  });
});

describe("the identity provider's configuration", () => {
  it("validates, keeps the client secret to itself, and is public only as its name and start URL", async () => {
    const t = await createTenant();
    expect(await (await t.fetch("/api/v1/identity-providers")).json()).toEqual({ identity_providers: [], total_count: 0 });
    expect((await t.fetch("/api/v1/identity-providers/idp_0123456789abcdef0123456789abcdef")).status).toBe(404);
    expect(await (await call(`/api/v1/auth/sso/${t.orgId}`)).json()).toEqual({ enabled: false, identity_providers: [] });
    let idpId: string | undefined;
    const put = async (json: Record<string, unknown>) => {
      const res = await t.fetch(idpId ? `/api/v1/identity-providers/${idpId}` : "/api/v1/identity-providers", { method: idpId ? "PUT" : "POST", json });
      if (res.status === 201) idpId = ((await res.clone().json()) as { id: string }).id;
      return res;
    };
    const valid = { display_name: "Sign in with Okta", issuer: "https://example.okta.com/oauth2/default", client_id: "0oa1", client_secret: "s3cr3t-0123456789-abcd" };
    const detailsOf = async (res: Response) => {
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { code: string; details: { path: string; message: string }[] } }).error;
    };
    // Plain http to a public host, another scheme, the metadata service, a query: refused.
    for (const bad of ["http://example.okta.com", "ftp://idp.example.org", "https://169.254.169.254/", "https://idp.example.org/?tenant=x", "not a url"]) {
      const e = await detailsOf(await put({ ...valid, issuer: bad }));
      expect(e.details.map((d) => d.path), bad).toEqual(["issuer"]);
    }
    expect((await detailsOf(await put({ ...valid, client_secret: undefined }))).details[0]?.path).toBe("client_secret");
    expect((await detailsOf(await put({ ...valid, scopes: ["email"] }))).details[0]?.path).toBe("scopes");
    expect((await detailsOf(await put({ ...valid, jit_provisioning: true }))).details.map((d) => d.path).sort()).toEqual(["allowed_email_domains", "role_mapping"]);
    expect((await detailsOf(await put({ ...valid, role_mapping: { claim: "groups", values: { x: "service" } } }))).details[0]?.path).toMatch(/^role_mapping/);
    expect((await detailsOf(await put({ ...valid, allowed_email_domains: ["not a domain"] }))).details[0]?.path).toBe("allowed_email_domains.0");
    expect((await detailsOf(await put({ ...valid, unknown_field: 1 }))).code).toBe("VALIDATION_FAILED");

    const saved = await put({ ...valid, allowed_email_domains: ["@Example.ORG"] });
    expect(saved.status).toBe(201);
    const view = (await saved.json()) as Record<string, unknown>;
    expect(view.id).toMatch(/^idp_[0-9a-f]{32}$/);
    expect(view).toMatchObject({
      display_name: "Sign in with Okta",
      issuer: valid.issuer,
      client_id: "0oa1",
      client_secret_hint: "****abcd",
      scopes: ["openid", "email", "profile"],
      email_claim: "email",
      role_mapping: { claim: "groups", values: {}, default: null, sync: false },
      allowed_email_domains: ["example.org"],
      jit_provisioning: false,
      enabled: true,
      redirect_uri: `http://localhost/api/v1/auth/sso/${t.orgId}/callback`,
      post_logout_redirect_uri: "http://localhost/?signed_out=sso",
      start_url: `http://localhost/api/v1/auth/sso/${t.orgId}/start?idp=${idpId}`,
      updated_by: t.keyId,
    });
    const read = await (await t.fetch(`/api/v1/identity-providers/${idpId}`)).text();
    expect(read).not.toContain(valid.client_secret);
    expect(JSON.stringify(await controlStore(env).select().from(users))).not.toContain(valid.client_secret);
    // Stored sealed, not as it was given.
    const [row] = await controlStore(env).select().from(identityProviders).where(eq(identityProviders.orgId, t.orgId));
    expect(row?.id).toBe(idpId);
    expect(JSON.stringify(row)).not.toContain(valid.client_secret);

    // Saved again without the secret: kept. A new client id needs its own.
    const { client_secret: _secret, ...withoutSecret } = valid;
    expect((await put({ ...withoutSecret, display_name: "Okta" })).status).toBe(200);
    expect((await detailsOf(await put({ ...withoutSecret, client_id: "0oa2" }))).details[0]?.path).toBe("client_secret");
    expect(((await (await t.fetch(`/api/v1/identity-providers/${idpId}`)).json()) as { client_secret_hint: string }).client_secret_hint).toBe("****abcd");

    const info = await (await call(`/api/v1/auth/sso/${t.orgId}`)).json();
    expect(info).toEqual({ enabled: true, identity_providers: [{ id: idpId, display_name: "Okta", start_url: `http://localhost/api/v1/auth/sso/${t.orgId}/start?idp=${idpId}` }] });

    const created = await auditOf(t, "identity_provider.create", (l) => l.some((e) => e.outcome === "0"));
    const updates = await auditOf(t, "identity_provider.update", (l) => l.some((e) => e.outcome === "0"));
    expect(created.find((e) => e.outcome === "0")?.entity[0]?.what?.identifier.value).toBe(idpId);
    expect(JSON.stringify([created, updates])).not.toContain(valid.client_secret);

    expect((await t.fetch(`/api/v1/identity-providers/${idpId}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/v1/identity-providers/${idpId}`, { method: "DELETE" })).status).toBe(404);
    expect(((await (await call(`/api/v1/auth/sso/${t.orgId}`)).json()) as { enabled: boolean }).enabled).toBe(false);
  });

  it("only admins change them, and each organization sees, changes and signs in with only its own", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { idpId: aIdp } = await configure(a, { display_name: "A's IdP" });
    const body = { display_name: "x", issuer, client_id: "c", client_secret: "s" };
    for (const role of ["clinician", "integration_engineer", "auditor"] as const) {
      const { key } = await createKey(a.orgId, role);
      const headers = { authorization: `Bearer ${key}`, "x-organization-id": a.orgId };
      expect((await call("/api/v1/identity-providers", { headers })).status, role).toBe(403);
      expect((await call("/api/v1/identity-providers", { method: "POST", headers, json: body })).status, role).toBe(403);
      expect((await call(`/api/v1/identity-providers/${aIdp}`, { headers })).status, role).toBe(403);
      expect((await call(`/api/v1/identity-providers/${aIdp}`, { method: "PUT", headers, json: body })).status, role).toBe(403);
      expect((await call(`/api/v1/identity-providers/${aIdp}`, { method: "DELETE", headers })).status, role).toBe(403);
    }
    // A clinician who signed in by SSO cannot change it either.
    const login = await idpAccount({ email: `cal@${domainOf(a)}`, groups: [] });
    const signed = await signIn(a.orgId, login);
    expect((await call(`/api/v1/identity-providers/${aIdp}`, { method: "DELETE", headers: { cookie: signed.session, "x-cdis-console": "1" } })).status).toBe(403);

    // Org B, with an identity provider of its own: A's is not there to list, read, change or remove.
    const { idpId: bIdp } = await configure(b);
    const listedB = (await (await b.fetch("/api/v1/identity-providers")).json()) as { identity_providers: { id: string }[] };
    expect(listedB.identity_providers.map((p) => p.id)).toEqual([bIdp]);
    expect((await b.fetch(`/api/v1/identity-providers/${aIdp}`)).status).toBe(404);
    expect((await b.fetch(`/api/v1/identity-providers/${aIdp}`, { method: "PUT", json: body })).status).toBe(404);
    expect((await b.fetch(`/api/v1/identity-providers/${aIdp}`, { method: "DELETE" })).status).toBe(404);
    expect((await b.fetch("/api/v1/identity-providers", { headers: { "x-organization-id": a.orgId } })).status).toBe(403);
    // Nor to sign in with, at B's start, nor offered on B's sign-in page.
    const atB = await call(`/api/v1/auth/sso/${b.orgId}/start?idp=${aIdp}`, { redirect: "manual" });
    expect(atB.headers.get("location")).toBe("http://localhost/?sso_error=IDP_UNKNOWN");
    expect(atB.headers.get("set-cookie")).toBeNull();
    const infoB = (await (await call(`/api/v1/auth/sso/${b.orgId}`)).json()) as { identity_providers: { id: string }[] };
    expect(infoB.identity_providers.map((p) => p.id)).toEqual([bIdp]);
    // A's is as it was.
    const readA = await a.fetch(`/api/v1/identity-providers/${aIdp}`);
    expect(readA.status).toBe(200);
    expect(((await readA.json()) as { display_name: string }).display_name).toBe("A's IdP");
  });
});

/** PUT of an identity provider as it is, with `changes`. */
async function replaceIdp(t: Tenant, idpId: string, changes: Record<string, unknown>): Promise<Response> {
  const current = (await (await t.fetch(`/api/v1/identity-providers/${idpId}`)).json()) as Record<string, unknown>;
  const { id: _i, client_secret_hint: _h, redirect_uri: _r, post_logout_redirect_uri: _p, start_url: _s, created_at: _c, updated_at: _u, updated_by: _b, ...body } = current;
  return t.fetch(`/api/v1/identity-providers/${idpId}`, { method: "PUT", json: { ...body, ...changes } });
}

describe("several identity providers per organization", () => {
  it("offers each enabled one by name, signs in at the one the start names, and refuses one not offered", async () => {
    const t = await createTenant();
    const staff = await configure(t, { display_name: "Staff IdP" });
    const partners = await configure(t, { display_name: "Partner IdP", role_mapping: { claim: "groups", values: {}, default: "auditor" } }, { add: true });
    const listed = (await (await t.fetch("/api/v1/identity-providers")).json()) as { identity_providers: { id: string; client_id: string }[]; total_count: number };
    expect(listed.total_count).toBe(2);
    expect(listed.identity_providers.map((p) => [p.id, p.client_id])).toEqual([
      [staff.idpId, staff.client_id],
      [partners.idpId, partners.client_id],
    ]);
    const startUrl = (id?: string) => `http://localhost/api/v1/auth/sso/${t.orgId}/start?idp=${id}`;
    expect(await (await call(`/api/v1/auth/sso/${t.orgId}`)).json()).toEqual({
      enabled: true,
      identity_providers: [
        { id: staff.idpId, display_name: "Staff IdP", start_url: startUrl(staff.idpId) },
        { id: partners.idpId, display_name: "Partner IdP", start_url: startUrl(partners.idpId) },
      ],
    });
    // Two offered and none named, or one the organization does not have: refused.
    for (const query of ["", "?idp=idp_0123456789abcdef0123456789abcdef"]) {
      const res = await call(`/api/v1/auth/sso/${t.orgId}/start${query}`, { redirect: "manual" });
      expect(res.headers.get("location"), query).toBe("http://localhost/?sso_error=IDP_UNKNOWN");
    }

    // The partners' start goes to the IdP as the partners' client, and signs in with their mapping.
    const s = await start(t.orgId, `?idp=${partners.idpId}`);
    expect(new URL(s.idpUrl).searchParams.get("client_id")).toBe(partners.client_id);
    const login = await idpAccount({ email: `pat@${domainOf(t)}`, email_verified: true, groups: ["cdis-admins"] });
    const done = await callback(await atIdp(s.idpUrl, login), s.browser);
    expect(done.error).toBeNull();
    expect(((await (await call("/api/v1/console/session", { headers: { cookie: done.session } })).json()) as { role: string }).role).toBe("auditor");
    expect(new URL((await start(t.orgId, `?idp=${staff.idpId}`)).idpUrl).searchParams.get("client_id")).toBe(staff.client_id);

    // A disabled one is no longer offered, nor started; the only one left starts unnamed too.
    expect((await replaceIdp(t, partners.idpId as string, { enabled: false })).status).toBe(200);
    expect(((await (await call(`/api/v1/auth/sso/${t.orgId}`)).json()) as { identity_providers: { id: string }[] }).identity_providers.map((p) => p.id)).toEqual([staff.idpId]);
    expect((await call(`/api/v1/auth/sso/${t.orgId}/start?idp=${partners.idpId}`, { redirect: "manual" })).headers.get("location")).toBe("http://localhost/?sso_error=IDP_UNKNOWN");
    const unnamed = await start(t.orgId);
    expect(new URL(unnamed.idpUrl).searchParams.get("client_id")).toBe(staff.client_id);

    // A sign-in started at an identity provider removed meanwhile does not complete.
    const pending = await start(t.orgId, `?idp=${staff.idpId}`);
    const back = await atIdp(pending.idpUrl, login);
    expect((await t.fetch(`/api/v1/identity-providers/${staff.idpId}`, { method: "DELETE" })).status).toBe(204);
    expect((await callback(back, pending.browser)).error).toBe("STATE_INVALID");
    const created = await auditOf(t, "identity_provider.create", (l) => l.length >= 2);
    expect(created.map((e) => e.entity[0]?.what?.identifier.value).sort()).toEqual([staff.idpId, partners.idpId].sort());
  });

  it("signing out ends the IdP's session too (RP-Initiated Logout: id_token_hint, client id, post-logout redirect)", async () => {
    const t = await createTenant();
    const client = await configure(t);
    const login = await idpAccount({ email: `lou@${domainOf(t)}`, email_verified: true, groups: ["cdis-engineers"] });
    const browserAtIdp: Jar = new Map();
    const prompts: string[] = [];
    const s = await start(t.orgId);
    const done = await callback(await atIdp(s.idpUrl, login, { jar: browserAtIdp, prompts }), s.browser);
    expect(done.error).toBeNull();
    expect(prompts).toContain("login");
    // While the IdP's session lasts, another sign-in in this browser asks for no password there.
    prompts.length = 0;
    const again = await start(t.orgId);
    const second = await callback(await atIdp(again.idpUrl, login, { jar: browserAtIdp, prompts }), again.browser);
    expect(second.error).toBeNull();
    expect(prompts).not.toContain("login");

    const out = await call("/api/v1/users/me/sign-out", { method: "POST", headers: { cookie: second.session, "x-cdis-console": "1" } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^cdis_session=; .*Max-Age=0/);
    const { end_session_url } = (await out.json()) as { end_session_url: string };
    const url = new URL(end_session_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/session/end`);
    expect(url.searchParams.get("client_id")).toBe(client.client_id);
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe("http://localhost/?signed_out=sso");
    const hint = JSON.parse(atob((url.searchParams.get("id_token_hint") ?? "").split(".")[1]?.replace(/-/g, "+").replace(/_/g, "/") ?? "")) as { iss: string; sub: string; aud: string };
    expect(hint).toMatchObject({ iss: issuer, sub: login, aud: client.client_id });
    // The console session is over at once.
    expect((await call("/api/v1/console/session", { headers: { cookie: second.session } })).status).toBe(401);
    expect((await call("/api/v1/users/me/sign-out", { method: "POST", headers: { cookie: second.session, "x-cdis-console": "1" } })).status).toBe(401);

    // The browser at the IdP: its "sign out?" form, confirmed; the IdP sends it back to the console.
    const page = await fetch(end_session_url, { headers: { cookie: cookieHeader(browserAtIdp) } });
    keep(browserAtIdp, page);
    const html = await page.text();
    expect(page.status, html.slice(0, 300)).toBe(200);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] ?? "";
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const confirmed = await fetch(new URL(action, end_session_url), {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookieHeader(browserAtIdp), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ xsrf, logout: "yes" }).toString(),
    });
    keep(browserAtIdp, confirmed);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("location")).toBe("http://localhost/?signed_out=sso");
    // The IdP's session is over: the next sign-in in this browser asks for the login again.
    prompts.length = 0;
    const after = await start(t.orgId);
    expect((await callback(await atIdp(after.idpUrl, login, { jar: browserAtIdp, prompts }), after.browser)).error).toBeNull();
    expect(prompts).toContain("login");

    // The first session, still open, is ended on its own; a session not opened by SSO ends with nothing to do at an IdP.
    const first = await call("/api/v1/users/me/sign-out", { method: "POST", headers: { cookie: done.session, "x-cdis-console": "1" } });
    expect(((await first.json()) as { end_session_url: string | null }).end_session_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/session\/end\?/);
    const keySession = await call("/api/v1/console/session", { method: "POST", json: { organization_id: t.orgId, api_key: t.key } });
    const keyCookie = (keySession.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const keyOut = await call("/api/v1/users/me/sign-out", { method: "POST", headers: { cookie: keyCookie, "x-cdis-console": "1" } });
    expect(keyOut.status).toBe(200);
    expect(await keyOut.json()).toEqual({ end_session_url: null });
    expect((await call("/api/v1/console/session", { headers: { cookie: keyCookie } })).status).toBe(401);
    const signOuts = await auditOf(t, "console_session.sign_out", (l) => l.length >= 3);
    expect(signOuts.every((e) => e.outcome === "0")).toBe(true);
  });
});
