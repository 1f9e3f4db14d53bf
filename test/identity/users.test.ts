// Organization users: invited by an admin (a one-time token), accepted with a password, signed in
// to the console with it (a session bound to the user, their role), locked after repeated
// failures, stopped at once when disabled, confined to their organization, named by AuditEvents.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../src/features/identity/tables";
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { hashPassword, needsRehash, verifyPassword } from "../../src/features/identity/password";
import { base64url } from "../../src/platform/base64url";
import { controlStore } from "../../src/platform/org-data";
import { eventually } from "../support/eventually";
import { call, createTenant } from "../support/tenants";
import { accept, activeUser, invite, PASSWORD, signIn, WRITE } from "./user-support";

describe("passwords", () => {
  it("hashes with scrypt, parameters kept with the hash, and verifies", async () => {
    const started = performance.now();
    const stored = await hashPassword(PASSWORD);
    const ms = performance.now() - started;
    console.log(`one scrypt hash (N=2^15, r=8, p=1) took ${ms.toFixed(0)} ms in workerd`);
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, stored)).toBe(false);
    expect(await verifyPassword(PASSWORD, "plain")).toBe(false);
    expect(needsRehash(stored)).toBe(false);
    const [, , , , salt, hash] = stored.split("$");
    // A stored hash cannot make a check cost more than the bound: refused, not computed.
    expect(await verifyPassword(PASSWORD, `scrypt$${2 ** 20}$8$1$${salt}$${hash}`)).toBe(false);
  });

  it("a hash made under weaker parameters, by an independent scrypt (@noble/hashes), signs in and is replaced by one under today's", async () => {
    const t = await createTenant();
    const u = await activeUser(t);
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const old = `scrypt$4096$8$1$${base64url(salt)}$${base64url(await scryptAsync(PASSWORD, salt, { N: 2 ** 12, r: 8, p: 1, dkLen: 32 }))}`;
    expect(needsRehash(old)).toBe(true);
    await controlStore(env).update(users).set({ passwordHash: old }).where(eq(users.id, u.id));
    expect((await signIn(t.orgId, u.email)).res.status).toBe(201);
    const [row] = await controlStore(env).select().from(users).where(eq(users.id, u.id));
    expect(row?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect((await signIn(t.orgId, u.email)).res.status).toBe(201);
    expect((await signIn(t.orgId, u.email, `${PASSWORD}!`)).res.status).toBe(401);
  });
});

describe("organization users", () => {
  it("invite, accept, sign in: the session cookie works and names the user and their role", async () => {
    const t = await createTenant();
    const u = await invite(t, "clinician", { fhir_user: "Practitioner/p-1" });
    expect(u.email).toMatch(/@example\.org$/);
    expect(u.token).toMatch(/^inv_/);
    // Only the token's hash is kept.
    const [row] = await controlStore(env).select().from(users).where(eq(users.id, u.id));
    expect(JSON.stringify(row)).not.toContain(u.token);
    expect(row?.passwordHash).toBeNull();

    expect((await signIn(t.orgId, u.email)).res.status).toBe(401);
    const accepted = await accept(u.token);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ id: u.id, status: "active" });
    // A token works once.
    expect((await accept(u.token)).status).toBe(400);

    const { res, session } = await signIn(t.orgId, u.email.toUpperCase());
    expect(res.status).toBe(201);
    expect(session).toMatch(/^cdis_session=sess_/);
    const view = (await res.json()) as Record<string, unknown>;
    expect(view).toMatchObject({ organization: { id: t.orgId }, role: "clinician", user: { id: u.id, email: u.email, fhir_user: "Practitioner/p-1" } });
    expect(view.key).toBeUndefined();

    const org = await call("/api/organization", { headers: { cookie: session } });
    expect(org.status).toBe(200);
    expect(await org.json()).toMatchObject({ id: t.orgId });
    const me = await call("/api/v1/console/session", { headers: { cookie: session } });
    expect(await me.json()).toMatchObject({ user: { id: u.id }, role: "clinician" });
    // A clinician manages no users.
    expect((await call("/api/v1/users", { headers: { cookie: session } })).status).toBe(403);

    const list = await t.fetch("/api/v1/users");
    expect(list.status).toBe(200);
    const page = (await list.json()) as { users: { id: string; status: string; last_sign_in_at: string | null }[]; total_count: number };
    expect(page.total_count).toBe(1);
    expect(page.users[0]).toMatchObject({ id: u.id, status: "active" });
    expect(page.users[0]?.last_sign_in_at).not.toBeNull();
    expect(page.users[0]).toMatchObject({ last_sign_in_method: "password", identity_provider: null, external_subject: null });
    // Never the hash, nor a field that could carry it.
    expect(JSON.stringify(page)).not.toMatch(/scrypt|password_hash|"password"\s*:|invitation/);
  });

  it("refuses short passwords, unknown tokens and a second invitation of one email", async () => {
    const t = await createTenant();
    const u = await invite(t);
    const short = await accept(u.token, "short");
    expect(short.status).toBe(400);
    expect(((await short.json()) as { error: { code: string; status: number } }).error).toMatchObject({ status: 400 });
    const unknown = await accept(`inv_${"A".repeat(43)}`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("INVALID_INVITATION");
    const again = await t.fetch("/api/v1/users/invitations", { method: "POST", json: { email: u.email.toUpperCase(), name: "Again", role: "auditor" } });
    expect(again.status).toBe(409);
  });

  it("accepting may set the name the person goes by; without one the invited name stays", async () => {
    const t = await createTenant();
    const renamed = await invite(t);
    const res = await call("/api/v1/auth/invitations/accept", { method: "POST", json: { token: renamed.token, password: PASSWORD, name: "  Dana D. Doe " } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: renamed.id, name: "Dana D. Doe", status: "active" });
    const kept = await invite(t);
    expect(await (await accept(kept.token)).json()).toMatchObject({ id: kept.id, name: "Dana Doe" });
    const blank = await invite(t);
    expect((await call("/api/v1/auth/invitations/accept", { method: "POST", json: { token: blank.token, password: PASSWORD, name: " " } })).status).toBe(400);
  });

  it("answers a wrong password with 401 and locks the account after 5 failures (Retry-After)", async () => {
    const t = await createTenant();
    const u = await invite(t);
    await accept(u.token);
    for (let i = 1; i <= 4; i++) {
      const { res } = await signIn(t.orgId, u.email, "wrong password!");
      expect(res.status).toBe(401);
      expect(res.headers.get("retry-after")).toBeNull();
    }
    const fifth = (await signIn(t.orgId, u.email, "wrong password!")).res;
    expect(fifth.status).toBe(401);
    expect(fifth.headers.get("retry-after")).toBe("60");
    // Locked: even the right password answers the same 401, with Retry-After.
    const locked = (await signIn(t.orgId, u.email)).res;
    expect(locked.status).toBe(401);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    const body = (await locked.json()) as { error: { code: string; message: string } };
    const unknownEmail = (await signIn(t.orgId, "nobody@example.org")).res;
    expect(unknownEmail.status).toBe(401);
    expect((await unknownEmail.json()) as unknown).toEqual({ ...body, error: { ...body.error, request_id: expect.anything() } } as unknown);
    // An admin unlocks the account: the right password signs in at once.
    expect((await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { unlock: true } })).status).toBe(200);
    expect((await signIn(t.orgId, u.email)).res.status).toBe(201);
  }, 90_000);

  it("keeps an active admin user: the last one can be neither demoted nor disabled, by itself or anyone", async () => {
    const t = await createTenant();
    const first = await activeUser(t, "admin");
    for (const change of [{ role: "clinician" }, { status: "disabled" }]) {
      const own = await call(`/api/v1/users/${first.id}`, { method: "PATCH", json: change, headers: { cookie: first.session, ...WRITE } });
      expect(own.status, JSON.stringify(change)).toBe(409);
      expect(((await own.json()) as { error: { code: string } }).error.code).toBe("LAST_ADMIN");
      expect((await t.fetch(`/api/v1/users/${first.id}`, { method: "PATCH", json: change })).status).toBe(409);
    }
    // With a second admin the first may step down; the second is then the last.
    const second = await activeUser(t, "admin");
    expect(await (await t.fetch(`/api/v1/users/${first.id}`, { method: "PATCH", json: { role: "clinician" } })).json()).toMatchObject({ role: "clinician" });
    expect((await t.fetch(`/api/v1/users/${second.id}`, { method: "PATCH", json: { status: "disabled" } })).status).toBe(409);
  }, 60_000);

  it("stops a disabled user's session at once, and their sign-in", async () => {
    const t = await createTenant();
    const u = await activeUser(t);
    expect((await call("/api/organization", { headers: { cookie: u.session } })).status).toBe(200);
    const disabled = await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { status: "disabled" } });
    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toMatchObject({ status: "disabled" });
    expect((await call("/api/organization", { headers: { cookie: u.session } })).status).toBe(401);
    expect((await signIn(t.orgId, u.email)).res.status).toBe(401);
    // Enabled again: signs in again.
    await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { status: "active" } });
    expect((await signIn(t.orgId, u.email)).res.status).toBe(201);
  }, 60_000);

  it("applies the user's role: an auditor reads FHIR but cannot write it; a role change applies at once", async () => {
    const t = await createTenant();
    const u = await activeUser(t, "auditor");
    const patient = JSON.stringify({ resourceType: "Patient", name: [{ family: "Doe" }] });
    const read = await call(`/fhir/r4/${t.orgId}/Patient`, { headers: { cookie: u.session } });
    expect(read.status).toBe(200);
    const write = await call(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", body: patient, headers: { cookie: u.session, ...WRITE, "content-type": "application/fhir+json" } });
    expect(write.status).toBe(403);
    await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { role: "integration_engineer" } });
    const again = await call(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", body: patient, headers: { cookie: u.session, ...WRITE, "content-type": "application/fhir+json" } });
    expect(again.status).toBe(201);
  }, 60_000);

  it("keeps users in their organization: org B neither lists nor patches A's, and A's invitation signs into A only", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const u = await invite(a);
    const listed = (await (await b.fetch("/api/v1/users")).json()) as { users: unknown[]; total_count: number };
    expect(listed.total_count).toBe(0);
    const patched = await b.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { role: "admin" } });
    expect(patched.status).toBe(404);
    expect(((await patched.json()) as { error: { code: string } }).error.code).toBe("USER_NOT_FOUND");
    expect((await accept(u.token)).status).toBe(200);
    expect((await signIn(b.orgId, u.email)).res.status).toBe(401);
    const inA = await signIn(a.orgId, u.email);
    expect(inA.res.status).toBe(201);
    // A's session names A: it cannot reach B's FHIR endpoint.
    expect((await call(`/fhir/r4/${b.orgId}/Patient`, { headers: { cookie: inA.session } })).status).toBe(403);
  });

  it("AuditEvents of a user's actions name the user (fhirUser, login) in both trails", async () => {
    const t = await createTenant();
    const u = await activeUser(t, "admin", { fhir_user: "Practitioner/dr-1" });
    const created = await call("/api/v1/users/invitations", { method: "POST", body: JSON.stringify({ email: "new@example.org", name: "New", role: "auditor" }), headers: { cookie: u.session, ...WRITE } });
    expect(created.status).toBe(201);
    const fhirWrite = await call(`/fhir/r4/${t.orgId}/Patient`, {
      method: "POST",
      body: JSON.stringify({ resourceType: "Patient" }),
      headers: { cookie: u.session, ...WRITE, "content-type": "application/fhir+json" },
    });
    expect(fhirWrite.status).toBe(201);
    type Bundle = { entry?: { resource: { subtype?: { code: string }[]; agent: { who: { reference?: string; identifier?: { system: string; value: string } }; altId?: string }[] } }[] };
    const has = (code: string) => (e: { subtype?: { code: string }[] }) => e.subtype?.some((s) => s.code === code) ?? false;
    const events = await eventually(
      async () => {
        const res = await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?_count=100`);
        return ((await res.json()) as Bundle).entry?.map((e) => e.resource) ?? [];
      },
      (all) => ["user.invite", "create", "console_session.sign_in"].every((code) => all.some(has(code))),
    );
    const newId = ((await created.json()) as { id: string }).id;
    const invited = events.find((e) => has("user.invite")(e) && JSON.stringify(e).includes(newId));
    for (const event of [invited, events.find(has("create"))]) {
      expect(event?.agent[0]?.who).toMatchObject({ reference: "Practitioner/dr-1", identifier: { system: "urn:cdis:user", value: u.id } });
      expect(event?.agent[0]?.altId).toBe(u.email);
    }
    expect(events.find(has("console_session.sign_in"))?.agent[0]?.altId).toBe(u.email);
  });
});
