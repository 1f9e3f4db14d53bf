// Personal API keys: a person's own keys for their scripts. Each acts as its user (their role as it
// is now, AuditEvents naming them), stops when they are disabled, cannot open a console session,
// and is managed only by its user from their console session; nothing crosses organizations.
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually";
import { authedFetch, call, createTenant } from "../support/tenants";
import { activeUser, WRITE } from "./user-support";

type Key = { id: string; key: string; role: string; owner_user_id: string | null };
const mine = (session: string, path = "", init: { method?: string; json?: unknown } = {}) =>
  call(`/api/v1/users/me/api-keys${path}`, { method: init.method ?? "GET", headers: { cookie: session, ...WRITE }, ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }) });

async function personalKey(session: string, name = "my script"): Promise<Key> {
  const res = await mine(session, "", { method: "POST", json: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Key;
}

describe("personal API keys", () => {
  it("act as their user: the user's role as it is now, AuditEvents naming them; stop when the user is disabled", async () => {
    const t = await createTenant();
    const u = await activeUser(t, "clinician", { fhir_user: "Practitioner/pk-1" });
    const key = await personalKey(u.session);
    expect(key).toMatchObject({ role: "clinician", owner_user_id: u.id });
    const asKey = authedFetch(t.orgId, key.key);
    const created = await asKey(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Keyed" }] } });
    expect(created.status).toBe(201);
    // A clinician manages no users, with a key or without.
    expect((await asKey("/api/v1/users")).status).toBe(403);
    // The trail names the person, not a key.
    const id = ((await created.json()) as { id: string }).id;
    const event = await eventually(
      async () => {
        const bundle = (await (await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?entity=Patient/${id}`)).json()) as { entry?: { resource: { agent: { who: { reference?: string; identifier?: { value: string } } }[] } }[] };
        return bundle.entry?.[0]?.resource;
      },
      (e) => e !== undefined,
    );
    expect(event?.agent[0]?.who).toMatchObject({ reference: "Practitioner/pk-1", identifier: { value: u.id } });
    // The administrators' list shows whose it is.
    const listed = (await (await t.fetch("/api/api-keys?limit=100")).json()) as { api_keys: Key[] };
    expect(listed.api_keys.find((k) => k.id === key.id)?.owner_user_id).toBe(u.id);

    // Made an auditor: the key reads and no longer writes.
    expect((await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { role: "auditor" } })).status).toBe(200);
    expect((await asKey(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(403);
    expect((await asKey(`/fhir/r4/${t.orgId}/Patient/${id}`)).status).toBe(200);
    // Disabled: the key stops.
    expect((await t.fetch(`/api/v1/users/${u.id}`, { method: "PATCH", json: { status: "disabled" } })).status).toBe(200);
    const stopped = await asKey(`/fhir/r4/${t.orgId}/Patient/${id}`);
    expect(stopped.status).toBe(401);
  });

  it("only their user lists and revokes them, from a console session; they open no console session; nothing crosses organizations", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const u = await activeUser(a, "integration_engineer");
    const other = await activeUser(a, "admin");
    const key = await personalKey(u.session);
    // Not with a key: neither the organization's nor the personal key itself.
    expect(await (await a.fetch("/api/v1/users/me/api-keys")).json()).toMatchObject({ error: { code: "USER_SESSION_REQUIRED", status: 403 } });
    expect((await authedFetch(a.orgId, key.key)("/api/v1/users/me/api-keys", { method: "POST", json: { name: "another" } })).status).toBe(403);
    // A console session is the person's own sign-in.
    const session = await call("/api/v1/console/session", { method: "POST", json: { organization_id: a.orgId, api_key: key.key } });
    expect(session.status).toBe(403);
    // Each user sees their own.
    expect(((await (await mine(u.session)).json()) as { api_keys: Key[] }).api_keys.map((k) => k.id)).toEqual([key.id]);
    expect(((await (await mine(other.session)).json()) as { total_count: number }).total_count).toBe(0);
    expect((await mine(other.session, `/${key.id}`, { method: "DELETE" })).status).toBe(404);
    // Not in another organization.
    expect((await authedFetch(b.orgId, key.key)(`/fhir/r4/${b.orgId}/Patient`)).status).toBe(403);
    expect((await b.fetch(`/api/api-keys/${key.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await mine(u.session, "", { method: "POST", json: { name: "" } })).status).toBe(400);
    // Revoked by its user: it stops.
    const revoked = await mine(u.session, `/${key.id}`, { method: "DELETE" });
    expect(await revoked.json()).toMatchObject({ id: key.id, status: "revoked" });
    expect((await authedFetch(a.orgId, key.key)(`/fhir/r4/${a.orgId}/Patient`)).status).toBe(401);
  });
});
