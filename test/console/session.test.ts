// The console's session: an API key exchanged for an HttpOnly cookie that then authenticates the
// same routes with the same role checks, refuses cross-site writes, expires and ends on sign-out.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { apiKeys, consoleSessions } from "../../src/features/tenancy/tables";
import { controlStore } from "../../src/platform/org-data";
import { definition, createPipeline, trigger } from "../support/pipelines";
import { call, createKey, createTenant } from "../support/tenants";

async function signIn(orgId: string, apiKey: string) {
  const res = await call("/api/v1/console/session", { method: "POST", json: { organization_id: orgId, api_key: apiKey } });
  const cookie = res.headers.get("set-cookie") ?? "";
  return { res, cookie, session: cookie.split(";")[0] ?? "" };
}

const withCookie = (session: string, headers: Record<string, string> = {}) => ({ cookie: session, ...headers });
const WRITE = { "x-cdis-console": "1", "content-type": "application/json" };

describe("console session", () => {
  it("signs in with an org id and key, sets a hardened cookie and answers who am I", async () => {
    const t = await createTenant();
    const { res, cookie, session } = await signIn(t.orgId, t.key);
    expect(res.status).toBe(201);
    expect(cookie).toMatch(/^cdis_session=sess_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ organization: { id: t.orgId, name: "Test org" }, role: "admin", key: { id: t.keyId } });
    expect(body.permissions).toContain("keys:manage");
    expect(JSON.stringify(body)).not.toContain(t.key);

    const me = await call("/api/v1/console/session", { headers: withCookie(session) });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ organization: { id: t.orgId }, role: "admin" });
    // The cookie authenticates the ordinary API too, without X-Organization-ID.
    const org = await call("/api/organization", { headers: withCookie(session) });
    expect(org.status).toBe(200);
    expect(await org.json()).toMatchObject({ id: t.orgId });
  });

  it("stores only the session id's hash", async () => {
    const t = await createTenant();
    const { session } = await signIn(t.orgId, t.key);
    const rows = await controlStore(env).select().from(consoleSessions).where(eq(consoleSessions.orgId, t.orgId));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(session.split("=")[1]);
  });

  it("refuses bad sign-ins clearly", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const bad = await call("/api/v1/console/session", { method: "POST", json: { organization_id: t.orgId } });
    expect(bad.status).toBe(400);
    expect((await signIn(t.orgId, "cdis_nope")).res.status).toBe(401);
    const wrongOrg = await signIn(other.orgId, t.key);
    expect(wrongOrg.res.status).toBe(403);
    expect(wrongOrg.cookie).toBe("");
    const service = await createKey(t.orgId, "service");
    const svc = await signIn(t.orgId, service.key);
    expect(svc.res.status).toBe(403);
    expect(((await svc.res.json()) as { error: { message: string } }).error.message).toMatch(/Service keys/);
  });

  it("requires the console header and the service's own origin for cookie-authenticated writes", async () => {
    const t = await createTenant();
    const { session } = await signIn(t.orgId, t.key);
    const body = JSON.stringify({ name: "made in the console", role: "clinician" });
    const noHeader = await call("/api/api-keys", { method: "POST", body, headers: withCookie(session, { "content-type": "application/json" }) });
    expect(noHeader.status).toBe(403);
    expect(((await noHeader.json()) as { error: { message: string } }).error.message).toMatch(/x-cdis-console/);
    const foreign = await call("/api/api-keys", { method: "POST", body, headers: withCookie(session, { ...WRITE, origin: "https://evil.example" }) });
    expect(foreign.status).toBe(403);
    const ok = await call("/api/api-keys", { method: "POST", body, headers: withCookie(session, { ...WRITE, origin: "http://localhost" }) });
    expect(ok.status).toBe(201);
  });

  it("applies the key's role: a clinician's session may not manage keys", async () => {
    const t = await createTenant();
    const clinician = await createKey(t.orgId, "clinician");
    const { session, res } = await signIn(t.orgId, clinician.key);
    expect(((await res.json()) as { permissions: string[] }).permissions).not.toContain("keys:manage");
    expect((await call("/api/api-keys", { headers: withCookie(session) })).status).toBe(403);
    expect((await call("/api/pipelines", { headers: withCookie(session) })).status).toBe(200);
  });

  it("ends on sign-out, on the key's revocation, and when idle or past its absolute expiry", async () => {
    const t = await createTenant();
    const a = await signIn(t.orgId, t.key);
    const out = await call("/api/v1/console/session", { method: "DELETE", headers: withCookie(a.session, WRITE) });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^cdis_session=; Path=\/; Max-Age=0/);
    const after = await call("/api/organization", { headers: withCookie(a.session) });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { message: string } }).error.message).toMatch(/signed out/);

    const clinician = await createKey(t.orgId, "clinician");
    const b = await signIn(t.orgId, clinician.key);
    expect((await t.fetch(`/api/api-keys/${clinician.keyId}`, { method: "DELETE" })).status).toBe(200);
    expect((await call("/api/organization", { headers: withCookie(b.session) })).status).toBe(401);

    const db = controlStore(env);
    const c = await signIn(t.orgId, t.key);
    const long = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    await db.update(consoleSessions).set({ lastSeenAt: long }).where(eq(consoleSessions.orgId, t.orgId));
    const idle = await call("/api/organization", { headers: withCookie(c.session) });
    expect(idle.status).toBe(401);
    expect(((await idle.json()) as { error: { message: string } }).error.message).toMatch(/expired/);

    const d = await signIn(t.orgId, t.key);
    const past = new Date(Date.now() - 1000).toISOString();
    await db.update(consoleSessions).set({ expiresAt: past }).where(eq(consoleSessions.orgId, t.orgId));
    expect((await call("/api/organization", { headers: withCookie(d.session) })).status).toBe(401);
  });

  it("never reaches another organization with a session", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await createPipeline(b, definition([trigger()], []));
    const { session } = await signIn(a.orgId, a.key);
    expect((await call(`/api/pipelines/${id}`, { headers: withCookie(session) })).status).toBe(404);
    expect((await call("/api/organization", { headers: withCookie(session, { "x-organization-id": b.orgId }) })).status).toBe(403);
    expect((await call(`/fhir/r4/${b.orgId}/Patient`, { headers: withCookie(session) })).status).toBe(403);
    expect((await call(`/fhir/r4/${a.orgId}/Patient`, { headers: withCookie(session) })).status).toBe(200);
  });

  it("records the key's last use for its sign-in and its session's requests (only its own key)", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const clinician = await createKey(a.orgId, "clinician");
    const lastUsed = async (keyId: string) => (await controlStore(env).select().from(apiKeys).where(eq(apiKeys.id, keyId)).get())?.lastUsedAt ?? null;
    expect(await lastUsed(clinician.keyId)).toBeNull();
    const { session } = await signIn(a.orgId, clinician.key);
    expect(await lastUsed(clinician.keyId)).not.toBeNull();

    // Over a minute ago: the session's next request records a new use (after the response).
    const old = new Date(Date.now() - 2 * 60_000).toISOString();
    await controlStore(env).update(apiKeys).set({ lastUsedAt: old }).where(eq(apiKeys.id, clinician.keyId));
    expect((await call("/api/pipelines", { headers: withCookie(session) })).status).toBe(200);
    await vi.waitFor(async () => expect(Date.parse((await lastUsed(clinician.keyId)) ?? "")).toBeGreaterThan(Date.parse(old)));
    const listed = (await (await a.fetch("/api/api-keys")).json()) as { api_keys: { id: string; last_used_at: string | null }[] };
    expect(listed.api_keys.find((k) => k.id === clinician.keyId)?.last_used_at).not.toBeNull();
    // Another organization's key is untouched by A's session.
    const bKey = await createKey(b.orgId, "clinician");
    expect((await call("/api/organization", { headers: withCookie(session, { "x-organization-id": b.orgId }) })).status).toBe(403);
    expect(await lastUsed(bKey.keyId)).toBeNull();
  });

  it("says so when who-am-I or sign-out come with a Bearer key instead of a session", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/v1/console/session");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "NO_CONSOLE_SESSION" } });
  });
});
