// Single sign-on in Chromium, end to end: the sign-in page offers "Sign in with <IdP>" once the
// organization id names an organization with an identity provider; clicking it goes through a
// real OpenID Provider on loopback (oidc-provider with its development login and consent forms,
// test/setup/oidc-idp.ts) and back to the console, signed in as a just-in-time user with the
// mapped role, among the buttons of each of the organization's identity providers. Signing out ends
// the IdP's session too (RP-Initiated Logout): the IdP asks, then sends the browser back to the
// console. A refusal comes back as ?sso_error= and the page says why in words.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { consolePerTest, consoleUrl, fileOrgs, textOf } from "./harness";
// The IdP's issuer in inject() (its globalSetup declares it).
import type {} from "../setup/oidc-idp";

const consolePage = consolePerTest();
const issuer = inject("oidcIssuer");

/** Organization B: its own identity providers for this file, removed at the end. */
const org = () => fileOrgs().orgB;

async function orgApi(path: string, method: string, body?: unknown): Promise<Response> {
  return fetch(`${consoleUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${org().adminKey}`, "x-organization-id": org().orgId, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function idpAccount(claims: Record<string, unknown>): Promise<string> {
  const id = `browser-${crypto.randomUUID()}`;
  const res = await fetch(`${issuer}/_control/accounts`, { method: "POST", body: JSON.stringify({ id, claims }) });
  expect(res.status).toBe(204);
  return id;
}

describe("single sign-on from the sign-in page", () => {
  const idpIds: string[] = [];
  /** A client of the IdP for organization B, and an identity provider of B with it. */
  async function addIdentityProvider(displayName: string, mapping: Record<string, string>) {
    const redirect = `${consoleUrl()}/api/v1/auth/sso/${org().orgId}/callback`;
    const registration = { redirect_uris: [redirect], post_logout_redirect_uris: [`${consoleUrl()}/?signed_out=sso`], grant_types: ["authorization_code"], response_types: ["code"] };
    const reg = await fetch(`${issuer}/reg`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(registration) });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as { client_id: string; client_secret: string };
    const created = await orgApi("/api/v1/identity-providers", "POST", {
      display_name: displayName,
      issuer,
      client_id: client.client_id,
      client_secret: client.client_secret,
      scopes: ["openid", "email", "profile", "groups"],
      role_mapping: { claim: "groups", values: mapping, default: null },
      allowed_email_domains: ["sso.example.org"],
      jit_provisioning: true,
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const saved = (await created.json()) as { id: string; redirect_uri: string; post_logout_redirect_uri: string };
    expect(saved).toMatchObject({ redirect_uri: redirect, post_logout_redirect_uri: registration.post_logout_redirect_uris[0] });
    idpIds.push(saved.id);
    return saved.id;
  }
  beforeAll(async () => {
    await addIdentityProvider("Sign in with Test IdP", { "cdis-engineers": "integration_engineer" });
    await addIdentityProvider("Sign in with Partner IdP", { "cdis-engineers": "auditor" });
  });
  afterAll(async () => {
    for (const id of idpIds) await orgApi(`/api/v1/identity-providers/${id}`, "DELETE");
  });

  async function startSso(login: string) {
    const page = await consolePage.open();
    await page.waitForSelector("input[name=organization]");
    await page.type("input[name=organization]", org().orgId);
    await page.waitForSelector("a[data-sso-start]");
    // A button for each identity provider, in the order they were added.
    expect(await page.$$eval("a[data-sso-start]", (links) => links.map((a) => a.textContent))).toEqual(["Sign in with Test IdP", "Sign in with Partner IdP"]);
    // The IdP's development login form (any password), then its consent form.
    await Promise.all([page.waitForNavigation(), page.click(`a[data-sso-start="${idpIds[0]}"]`)]);
    expect(page.url().startsWith(issuer)).toBe(true);
    await page.type("input[name=login]", login);
    await page.type("input[name=password]", "anything");
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    if (page.url().startsWith(issuer)) await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    return page;
  }

  it("signs a new person in through the IdP as a user with the mapped role", async () => {
    const email = `engineer.${crypto.randomUUID().slice(0, 6)}@sso.example.org`;
    const login = await idpAccount({ email, email_verified: true, name: "Eve Engineer", groups: ["cdis-engineers"] });
    const page = await startSso(login);
    await page.waitForSelector("header [data-signed-in-as]", { timeout: 20_000 });
    expect(page.url().startsWith(consoleUrl())).toBe(true);
    expect(await textOf(page, "header [data-signed-in-as]")).toBe(`Eve Engineer (${email})`);
    const users = (await (await orgApi("/api/v1/users?limit=100", "GET")).json()) as { users: { email: string; role: string; status: string }[] };
    expect(users.users.find((u) => u.email === email)).toMatchObject({ role: "integration_engineer", status: "active" });

    // Signing out: the IdP asks whether to end its session too, then sends the browser back here.
    await Promise.all([page.waitForNavigation(), page.click("header button")]);
    expect(page.url().startsWith(`${issuer}/session/end`)).toBe(true);
    await Promise.all([page.waitForNavigation(), page.click("button[name=logout][value=yes]")]);
    expect(page.url()).toBe(`${consoleUrl()}/?signed_out=sso`);
    await page.waitForSelector("main.signin [role=status]");
    expect(await textOf(page, "main.signin [role=status]")).toBe("You signed out, at your identity provider too.");
    // The IdP's session is over: signing in again asks for the login at the IdP.
    await page.waitForSelector("input[name=organization]");
    await page.type("input[name=organization]", org().orgId);
    await page.waitForSelector(`a[data-sso-start="${idpIds[0]}"]`);
    await Promise.all([page.waitForNavigation(), page.click(`a[data-sso-start="${idpIds[0]}"]`)]);
    expect(page.url().startsWith(issuer)).toBe(true);
    await page.waitForSelector("input[name=login]");
  });

  it("says in words why the IdP's answer was refused: a domain the organization does not allow", async () => {
    const login = await idpAccount({ email: `mallory@elsewhere.example.com`, email_verified: true, name: "Mallory", groups: ["cdis-engineers"] });
    const page = await startSso(login);
    await page.waitForSelector("[role=alert]", { timeout: 20_000 });
    expect(new URL(page.url()).searchParams.get("sso_error")).toBe("DOMAIN_NOT_ALLOWED");
    expect(await textOf(page, "[role=alert]")).toBe("Your email address's domain may not sign in to this organization.");
    expect(await page.$("header [data-signed-in-as]")).toBeNull();
  });

  it("offers no button for an organization without single sign-on", async () => {
    const page = await consolePage.open();
    await page.waitForSelector("input[name=organization]");
    await page.type("input[name=organization]", fileOrgs().orgA.orgId);
    await page.waitForResponse((r) => r.url().includes("/api/v1/auth/sso/"));
    expect(await page.$("a[data-sso-start]")).toBeNull();
  });
});
