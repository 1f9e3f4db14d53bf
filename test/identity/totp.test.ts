// Two-factor sign-in with TOTP (RFC 6238), as a person sets it up with an authenticator app: the
// codes here come from otplib as the app computes them from the secret the service showed. A code
// works once, a wrong one counts toward the lockout, recovery codes work once each, turning it off
// needs a code, an administrator can reset it, and nothing crosses organizations.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { generate } from "otplib";
import { describe, expect, it } from "vitest";
import { users } from "../../src/features/identity/tables";
import { controlStore } from "../../src/platform/org-data";
import { eventually } from "../support/eventually";
import { call, createTenant, type Tenant } from "../support/tenants";
import { activeUser, PASSWORD, WRITE } from "./user-support";

type Session = { session: string };
const asUser = (u: Session, path: string, init: { method?: string; json?: unknown } = {}) =>
  call(`/api/v1/users/me/totp${path}`, { method: init.method ?? "GET", headers: { cookie: u.session, ...WRITE }, ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }) });
const codeAt = (secret: string, offsetSeconds = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSeconds });
/** A code the app does not show now. */
const notTheCode = async (secret: string) => ((await codeAt(secret)) === "000000" ? "111111" : "000000");
const passwordStep = (t: Tenant, email: string) => call("/api/v1/auth/sign-in", { method: "POST", json: { organization_id: t.orgId, email, password: PASSWORD } });
const secondStep = (orgId: string, challenge: string, proof: { code?: string; recovery_code?: string }) => call("/api/v1/auth/sign-in/totp", { method: "POST", json: { organization_id: orgId, challenge, ...proof } });

async function challengeOf(t: Tenant, email: string): Promise<string> {
  const res = await passwordStep(t, email);
  expect(res.status).toBe(200);
  expect(res.headers.get("set-cookie")).toBeNull();
  const body = (await res.json()) as { second_factor: string; challenge: string };
  expect(body.second_factor).toBe("totp");
  return body.challenge;
}

/** Two-factor sign-in turned on by the user: the secret as the app holds it and the recovery codes. */
async function enroll<U extends Session>(u: U) {
  const started = await asUser(u, "", { method: "POST" });
  expect(started.status).toBe(201);
  const { secret, otpauth_uri } = (await started.json()) as { secret: string; otpauth_uri: string };
  expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\/CDIS:/);
  expect(new URL(otpauth_uri).searchParams.get("secret")).toBe(secret);
  const confirmed = await asUser(u, "/confirm", { method: "POST", json: { code: await codeAt(secret) } });
  expect(confirmed.status).toBe(200);
  const { recovery_codes } = (await confirmed.json()) as { recovery_codes: string[] };
  return { ...u, secret, recovery: recovery_codes };
}

const enrolled = async (t: Tenant) => enroll(await activeUser(t, "admin"));

/** Each password step is a scrypt (about a second of CPU in workerd, more on a loaded machine). */
const SCRYPT_HEAVY = 60_000;

describe("two-factor sign-in (TOTP)", () => {
  it("set up with a code from the app; then sign-in asks for a code, which works once; a recovery code works once", async () => {
    const t = await createTenant();
    const u = await activeUser(t, "admin");
    expect(await (await asUser(u, "")).json()).toEqual({ enabled: false, enabled_at: null, recovery_codes_left: 0, pending: false });
    const { secret } = (await (await asUser(u, "", { method: "POST" })).json()) as { secret: string };
    // Kept sealed: the secret is nowhere in the row.
    const [row] = await controlStore(env).select().from(users).where(eq(users.id, u.id));
    expect(JSON.stringify(row)).not.toContain(secret);
    // A wrong code does not turn it on.
    const wrong = await asUser(u, "/confirm", { method: "POST", json: { code: (Number(await codeAt(secret)) ^ 1).toString().padStart(6, "0") } });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ error: { code: "INVALID_TOTP_CODE", details: [{ path: "code" }] } });
    const first = await codeAt(secret);
    const confirmed = await asUser(u, "/confirm", { method: "POST", json: { code: first } });
    expect(confirmed.status).toBe(200);
    const { recovery_codes } = (await confirmed.json()) as { recovery_codes: string[] };
    expect(recovery_codes).toHaveLength(10);
    expect(recovery_codes[0]).toMatch(/^[0-9a-f]{5}-[0-9a-f]{5}$/);
    expect(await (await asUser(u, "")).json()).toMatchObject({ enabled: true, recovery_codes_left: 10, pending: false });
    expect((await asUser(u, "", { method: "POST" })).status).toBe(409);
    const listed = (await (await t.fetch("/api/v1/users")).json()) as { users: { id: string; totp_enabled: boolean }[] };
    expect(listed.users.find((x) => x.id === u.id)?.totp_enabled).toBe(true);

    // The password alone opens no session; the code used to confirm is spent.
    const challenge = await challengeOf(t, u.email);
    const replay = await secondStep(t.orgId, challenge, { code: first });
    expect(replay.status).toBe(401);
    expect(await replay.json()).toMatchObject({ error: { code: "INVALID_TOTP_CODE" } });
    // The app's next code (one step ahead is within the drift allowed) signs in.
    const next = await secondStep(t.orgId, challenge, { code: await codeAt(secret, 30) });
    expect(next.status).toBe(201);
    const session = (next.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(await (await call("/api/v1/console/session", { headers: { cookie: session } })).json()).toMatchObject({ user: { id: u.id } });
    // A challenge completes one sign-in.
    expect(await (await secondStep(t.orgId, challenge, { code: await codeAt(secret, 30) })).json()).toMatchObject({ error: { code: "SIGN_IN_EXPIRED" } });

    // A recovery code, typed in capitals without its dash, works once.
    const typed = recovery_codes[0]!.replace("-", "").toUpperCase();
    expect((await secondStep(t.orgId, await challengeOf(t, u.email), { recovery_code: typed })).status).toBe(201);
    expect((await secondStep(t.orgId, await challengeOf(t, u.email), { recovery_code: recovery_codes[0]! })).status).toBe(401);
    expect(await (await asUser(u, "")).json()).toMatchObject({ recovery_codes_left: 9 });
    // New codes replace the old ones.
    const renewed = await asUser(u, "/recovery-codes", { method: "POST", json: { recovery_code: recovery_codes[1]! } });
    expect(renewed.status).toBe(200);
    expect((await secondStep(t.orgId, await challengeOf(t, u.email), { recovery_code: recovery_codes[2]! })).status).toBe(401);
    // The trail says how each sign-in was made.
    await eventually(
      async () => JSON.stringify(await (await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?_count=100`)).json()),
      (trail) => ["password+totp", "password+recovery_code", "wrong TOTP code", "wrong recovery code", "user.totp_enable", "user.totp_recovery_codes"].every((s) => trail.includes(s)),
    );
  }, SCRYPT_HEAVY);

  it("wrong codes lock the account as wrong passwords do; turning it off needs a code; an administrator can reset it", async () => {
    const t = await createTenant();
    const u = await enrolled(t);
    const challenge = await challengeOf(t, u.email);
    for (let i = 1; i <= 5; i++) {
      const res = await secondStep(t.orgId, challenge, { code: await notTheCode(u.secret) });
      expect(res.status).toBe(401);
      if (i === 5) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // Locked: even the right code waits, and so does the password.
    expect((await secondStep(t.orgId, challenge, { code: await codeAt(u.secret, 30) })).status).toBe(401);
    expect((await passwordStep(t, u.email)).status).toBe(401);
    await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { unlock: true } });

    // Turning it off: not without a code, not by an API key, yes with a recovery code.
    expect((await asUser(u, "/disable", { method: "POST", json: { code: await notTheCode(u.secret) } })).status).toBe(422);
    expect(await (await t.fetch("/api/v1/users/me/totp")).json()).toMatchObject({ error: { code: "USER_SESSION_REQUIRED", status: 403 } });
    expect((await asUser(u, "/disable", { method: "POST", json: { recovery_code: u.recovery[0]! } })).status).toBe(204);
    expect((await passwordStep(t, u.email)).status).toBe(201);

    // An administrator's reset (a lost phone): the password alone signs in again.
    const again = await enroll(u);
    expect((await passwordStep(t, again.email)).status).toBe(200);
    const reset = await t.fetch(`/api/v1/users/${again.id}/totp`, { method: "DELETE" });
    expect(reset.status).toBe(200);
    expect(await reset.json()).toMatchObject({ id: again.id, totp_enabled: false });
    expect((await passwordStep(t, again.email)).status).toBe(201);
  }, SCRYPT_HEAVY);

  it("refuses bad input, and nothing crosses organizations: B neither resets A's user nor completes A's sign-in", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const u = await enrolled(a);
    const challenge = await challengeOf(a, u.email);
    expect((await secondStep(a.orgId, challenge, { code: "12ab56" })).status).toBe(400);
    expect((await secondStep(a.orgId, challenge, { code: "123456", recovery_code: u.recovery[0]! })).status).toBe(400);
    expect((await secondStep(a.orgId, challenge, {})).status).toBe(400);
    // A's challenge presented as B's organization is unknown there, even with the right code.
    expect(await (await secondStep(b.orgId, challenge, { code: await codeAt(u.secret, 30) })).json()).toMatchObject({ error: { code: "SIGN_IN_EXPIRED" } });
    expect((await b.fetch(`/api/v1/users/${u.id}/totp`, { method: "DELETE" })).status).toBe(404);
    expect(await (await asUser(u, "")).json()).toMatchObject({ enabled: true });
    expect((await secondStep(a.orgId, challenge, { code: await codeAt(u.secret, 30) })).status).toBe(201);
  }, SCRYPT_HEAVY);
});
