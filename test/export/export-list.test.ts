// GET /api/v1/bulk-exports: the organization's exports, newest first and paged, each with its
// job's live status; another organization's exports never appear; export:run is required. And the
// console's session cookie authenticates the status and file routes like the key would.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { call, createKey, createTenant, type Tenant } from "../support/tenants";

const KICKOFF = { accept: "application/fhir+json", prefer: "respond-async" };

interface Listed {
  id: string;
  level: string;
  types: string[];
  since: string | null;
  status: string;
  progress: number;
  exported: number;
  status_url: string;
  requested_by: { key_id: string; name: string };
}

async function kickoff(t: Tenant, query: string): Promise<string> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`, { headers: KICKOFF });
  expect(res.status).toBe(202);
  return res.headers.get("content-location")!.split("/").pop()!;
}

async function list(t: Tenant, query = ""): Promise<{ bulk_exports: Listed[]; total_count: number }> {
  const res = await t.fetch(`/api/v1/bulk-exports${query}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe("bulk export list", () => {
  it("lists the organization's exports newest first with live status, paged", async () => {
    const t = await createTenant();
    await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Listed" }] }) });
    const first = await kickoff(t, "$export?_type=Patient&_since=2020-01-01T00:00:00Z");
    const second = await kickoff(t, "Patient/$export?_type=Patient,Observation");

    const running = await list(t);
    expect(running.total_count).toBe(2);
    expect(running.bulk_exports.map((e) => e.id)).toEqual([second, first]);
    expect(running.bulk_exports[0]).toMatchObject({ level: "patient", types: ["Patient", "Observation"], since: null, status: "running", progress: 0, requested_by: { key_id: t.keyId } });
    expect(running.bulk_exports[1]).toMatchObject({ level: "system", types: ["Patient"], since: "2020-01-01T00:00:00.000Z", status: "running" });
    expect(new URL(running.bulk_exports[1]!.status_url).pathname).toBe(`/fhir/r4/${t.orgId}/bulkdata/status/${first}`);

    await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, first));
    expect((await t.fetch(`/fhir/r4/${t.orgId}/bulkdata/status/${second}`, { method: "DELETE" })).status).toBe(202);
    const settled = await list(t);
    expect(settled.bulk_exports.map((e) => [e.id, e.status])).toEqual([
      [second, "cancelled"],
      [first, "completed"],
    ]);
    expect(settled.bulk_exports[1]).toMatchObject({ progress: 100, exported: 1 });

    const page = await list(t, "?limit=1&offset=1");
    expect(page).toMatchObject({ total_count: 2, bulk_exports: [{ id: first }] });
    expect((await t.fetch("/api/v1/bulk-exports?limit=0")).status).toBe(400);
  });

  it("never shows another organization's exports and needs export:run", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const theirs = await kickoff(a, "$export?_type=Patient");
    const ours = await list(b);
    expect(ours).toEqual({ bulk_exports: [], total_count: 0 });
    expect(JSON.stringify(ours)).not.toContain(theirs);
    // B's key naming A's organization is refused outright.
    const crossed = await call("/api/v1/bulk-exports", { headers: { authorization: `Bearer ${b.key}`, "x-organization-id": a.orgId } });
    expect(crossed.status).toBe(403);

    const clinician = await createKey(a.orgId, "clinician");
    const refused = await call("/api/v1/bulk-exports", { headers: { authorization: `Bearer ${clinician.key}`, "x-organization-id": a.orgId } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("export:run");
  });

  it("accepts the console session cookie on the status and file routes, and only for its own organization", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await a.fetch(`/fhir/r4/${a.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Cookie" }] }) });
    const job = await kickoff(a, "$export?_type=Patient");
    await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, a.orgId, job));
    const signIn = await call("/api/v1/console/session", { method: "POST", json: { organization_id: a.orgId, api_key: a.key } });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!;

    const status = await call(`/fhir/r4/${a.orgId}/bulkdata/status/${job}`, { headers: { cookie } });
    expect(status.status).toBe(200);
    const manifest = (await status.json()) as { output: { url: string }[] };
    const file = await call(new URL(manifest.output[0]!.url).pathname, { headers: { cookie } });
    expect(file.status).toBe(200);
    expect(await file.text()).toContain('"family":"Cookie"');

    // The session is A's: B's organization in the path is refused, and B's list stays empty.
    const other = await call(`/fhir/r4/${b.orgId}/bulkdata/status/${job}`, { headers: { cookie } });
    expect(other.status).toBe(403);
    const listed = await call("/api/v1/bulk-exports", { headers: { cookie } });
    expect(((await listed.json()) as { bulk_exports: { id: string }[] }).bulk_exports.map((e) => e.id)).toEqual([job]);
  });
});
