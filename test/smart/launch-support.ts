// Fixtures of the App Launch tests: a signed-in console user (invited, accepted, signed in with a
// password, as test/identity/users.test.ts does), registered apps, PKCE, and the browser's part
// of the flow: following the authorization endpoint, reading the consent form, posting the
// decision, exchanging the code.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { users } from "../../src/features/identity/tables";
import { UserStore } from "../../src/features/identity/users";
import { ConsoleSessionStore } from "../../src/features/tenancy";
import { base64url } from "../../src/platform/base64url";
import { controlStore } from "../../src/platform/org-data";
import type { Role } from "../../src/platform/principal";
import { call, type Tenant } from "../support/tenants";

export const PASSWORD = "correct horse battery";
export const REDIRECT = "https://app.example/callback";
export const LAUNCH_URI = "https://app.example/launch";
export const base = (t: Tenant) => `http://localhost/fhir/r4/${t.orgId}`;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

export interface SignedInUser {
  id: string;
  email: string;
  /** `cdis_session=...` */
  cookie: string;
}

/**
 * An active user with a console session, made straight through the stores: the same rows a
 * password sign-in makes, without its two scrypt hashes (~2 s of CPU each in workerd), so the
 * files that need many users stay quick. `signedInUser` goes through the real invitation and sign-in.
 */
export async function quickUser(t: Tenant, role: Role = "clinician", fhirUser?: string): Promise<SignedInUser> {
  const db = controlStore(env);
  const email = `${crypto.randomUUID().slice(0, 8)}@example.org`;
  const row = await new UserStore(db).create({ orgId: t.orgId, email, name: "Dana Doe", role, fhirUser, invitationHash: crypto.randomUUID(), invitationExpiresAt: new Date(Date.now() + 60_000).toISOString(), createdBy: t.keyId });
  await db.update(users).set({ status: "active", invitationHash: null, invitationExpiresAt: null }).where(eq(users.id, row.id));
  return { id: row.id, email, cookie: await quickSession(t, row.id) };
}

/** A new console session of the user (as a sign-in makes). */
export async function quickSession(t: Tenant, userId: string): Promise<string> {
  const { id } = await new ConsoleSessionStore(controlStore(env)).create(t.orgId, { userId }, Date.now(), 3600);
  return `cdis_session=${id}`;
}

export async function signedInUser(t: Tenant, role: Role = "clinician", extra: Record<string, unknown> = {}): Promise<SignedInUser> {
  const email = `${crypto.randomUUID().slice(0, 8)}@example.org`;
  const invited = await t.fetch("/api/v1/users/invitations", { method: "POST", json: { email, name: "Dana Doe", role, ...extra } });
  expect(invited.status).toBe(201);
  const body = (await invited.json()) as { id: string; invitation: { token: string } };
  expect((await call("/api/v1/auth/invitations/accept", { method: "POST", json: { token: body.invitation.token, password: PASSWORD } })).status).toBe(200);
  return { id: body.id, email, cookie: await signIn(t, email) };
}

export async function signIn(t: Tenant, email: string): Promise<string> {
  const res = await call("/api/v1/auth/sign-in", { method: "POST", json: { organization_id: t.orgId, email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}

export interface App {
  id: string;
  secret?: string;
  type: "public" | "confidential";
}

export const APP_SCOPES = [
  "launch",
  "launch/patient",
  "launch/encounter",
  "openid",
  "fhirUser",
  "offline_access",
  "online_access",
  "patient/Patient.rs",
  "patient/Observation.rs",
  "user/Patient.rs",
];

export async function registerApp(t: Tenant, opts: { type?: "public" | "confidential"; scopes?: string[]; launch?: boolean; extra?: Record<string, unknown> } = {}): Promise<App> {
  const res = await t.fetch("/api/v1/client-applications", {
    method: "POST",
    json: { name: "Growth <Chart> & Co", type: opts.type ?? "public", redirect_uris: [REDIRECT], scopes: opts.scopes ?? APP_SCOPES, ...(opts.launch ? { launch_uri: LAUNCH_URI } : {}), ...opts.extra },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const body = (await res.json()) as { id: string; client_secret?: string; type: "public" | "confidential" };
  return { id: body.id, type: body.type, ...(body.client_secret ? { secret: body.client_secret } : {}) };
}

export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(48)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

export interface AuthorizeOptions {
  scope?: string;
  redirectUri?: string;
  aud?: string;
  challenge?: string;
  method?: string;
  launch?: string;
  nonce?: string;
  state?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(t: Tenant, app: App, o: AuthorizeOptions & { challenge: string }): string {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: app.id,
    redirect_uri: o.redirectUri ?? REDIRECT,
    scope: o.scope ?? "launch/patient openid fhirUser offline_access patient/Patient.rs patient/Observation.rs",
    state: o.state ?? "st-123",
    aud: o.aud ?? base(t),
    code_challenge: o.challenge,
    code_challenge_method: o.method ?? "S256",
    ...(o.launch ? { launch: o.launch } : {}),
    ...(o.nonce ? { nonce: o.nonce } : {}),
    ...o.extra,
  });
  return `/fhir/r4/${t.orgId}/auth/authorize?${q}`;
}

export const authorize = (path: string, cookie?: string) => call(path, { headers: cookie ? { cookie } : {}, redirect: "manual" });

/** The consent form's hidden fields. */
export function consentForm(html: string): { request: string; csrf: string } {
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(request, html).toBeDefined();
  expect(csrf).toBeDefined();
  return { request: request!, csrf: csrf! };
}

export function decide(t: Tenant, cookie: string, form: Record<string, string>, headers: Record<string, string> = { origin: "http://localhost" }) {
  return call(`/fhir/r4/${t.orgId}/auth/authorize/consent`, { method: "POST", body: new URLSearchParams(form), headers: { ...FORM, cookie, ...headers }, redirect: "manual" });
}

export function redirectParams(res: Response): URLSearchParams {
  expect(res.status).toBe(302);
  const location = res.headers.get("location") ?? "";
  expect(location.startsWith(REDIRECT), location).toBe(true);
  return new URL(location).searchParams;
}

/** The whole browser part: authorize, consent, approve (picking `patient` when asked); the code and the verifier. */
export async function approvedCode(t: Tenant, app: App, user: SignedInUser, o: AuthorizeOptions & { patient?: string } = {}) {
  const { verifier, challenge } = await pkce();
  const page = await authorize(authorizeUrl(t, app, { ...o, challenge }), user.cookie);
  expect(page.status, page.headers.get("location") ?? "").toBe(200);
  const form = consentForm(await page.text());
  const res = await decide(t, user.cookie, { ...form, decision: "approve", ...(o.patient ? { patient: o.patient } : {}) });
  const params = redirectParams(res);
  expect(params.get("state")).toBe(o.state ?? "st-123");
  const code = params.get("code");
  expect(code, params.toString()).toBeTruthy();
  return { code: code!, verifier };
}

export function token(t: Tenant, form: Record<string, string>, headers: Record<string, string> = {}) {
  return call(`/fhir/r4/${t.orgId}/auth/token`, { method: "POST", body: new URLSearchParams(form), headers: { ...FORM, ...headers } });
}

export const basic = (app: App) => ({ authorization: `Basic ${btoa(`${app.id}:${app.secret ?? ""}`)}` });

export function exchange(t: Tenant, app: App, code: string, verifier: string, extra: Record<string, string> = {}) {
  const auth: Record<string, string> = app.type === "confidential" ? {} : { client_id: app.id };
  return token(t, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, ...auth, ...extra }, app.type === "confidential" ? basic(app) : {});
}

export interface Tokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  patient?: string;
  encounter?: string;
  fhirUser?: string;
  need_patient_banner?: boolean;
  smart_style_url?: string;
}

export async function tokensOf(res: Response): Promise<Tokens> {
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Tokens;
}

export function refresh(t: Tenant, app: App, refreshToken: string, extra: Record<string, string> = {}) {
  const auth: Record<string, string> = app.type === "confidential" ? {} : { client_id: app.id };
  return token(t, { grant_type: "refresh_token", refresh_token: refreshToken, ...auth, ...extra }, app.type === "confidential" ? basic(app) : {});
}

export const bearer = (accessToken: string) => ({ headers: { authorization: `Bearer ${accessToken}` } });

export async function oauthError(res: Response, status: number, error: string) {
  expect(res.status, await res.clone().text()).toBe(status);
  expect(((await res.json()) as { error: string }).error).toBe(error);
}

/** A Patient with an Observation, and another Patient with one (the data a patient/ token must not reach). */
export async function twoPatients(t: Tenant) {
  const mk = async (family: string) => {
    const p = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family, given: ["Pat"] }], birthDate: "1990-01-01" } })).json()) as { id: string };
    const o = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, {
      method: "POST",
      json: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: `Patient/${p.id}` } },
    });
    expect(o.status).toBe(201);
    return { patient: p.id, observation: ((await o.json()) as { id: string }).id };
  };
  return { mine: await mk(`Launch${crypto.randomUUID().slice(0, 4)}`), other: await mk("Other") };
}
