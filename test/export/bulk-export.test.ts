// Bulk Data export end to end, as a client following the IG: kick-off, status
// polling (the ExportJob's alarms driven by the test), manifest, NDJSON downloads;
// plus levels, filters, cancel, expiry, the concurrency cap, tenancy and audit.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { put } from "../fhir/support";
import { type Tenant, authedFetch, createTenant } from "../support/tenants";
import { eventually } from "../support/eventually";

const KICKOFF = { accept: "application/fhir+json", prefer: "respond-async" };

interface Manifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: { type: string; url: string; count: number }[];
  error: { type: string; url: string; count: number }[];
}

/** Loads patients with observations (one with a special code) and a Group of the first two patients. */
async function seed(t: Tenant, patients = 3, observations = 4) {
  const entry: unknown[] = [];
  for (let p = 0; p < patients; p++) {
    entry.push({ fullUrl: `urn:uuid:00000000-0000-4000-8000-00000000000${p}`, resource: { resourceType: "Patient", name: [{ family: `Fam${p}` }], gender: "female" }, request: { method: "POST", url: "Patient" } });
    for (let o = 0; o < observations; o++) {
      const code = o === 0 ? "8867-4" : "29463-7";
      entry.push({
        resource: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code }] }, subject: { reference: `urn:uuid:00000000-0000-4000-8000-00000000000${p}` }, valueQuantity: { value: 60 + o, unit: "bpm" } },
        request: { method: "POST", url: "Observation" },
      });
    }
  }
  entry.push({ resource: { resourceType: "Condition", subject: { reference: "urn:uuid:00000000-0000-4000-8000-000000000000" }, code: { text: "Hypertension" } }, request: { method: "POST", url: "Condition" } });
  const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", body: JSON.stringify({ resourceType: "Bundle", type: "transaction", entry }), headers: { "content-type": "application/fhir+json" } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { entry: { response: { location: string } }[] };
  const patientIds = body.entry.map((e) => e.response.location).filter((l) => l.startsWith("Patient/")).map((l) => l.split("/")[1]!);
  const group = await t.fetch(`/fhir/r4/${t.orgId}/Group`, {
    method: "POST",
    body: JSON.stringify({ resourceType: "Group", type: "person", actual: true, member: patientIds.slice(0, 2).map((id) => ({ entity: { reference: `Patient/${id}` } })) }),
    headers: { "content-type": "application/fhir+json" },
  });
  return { patientIds, groupId: ((await group.json()) as { id: string }).id };
}

async function kickoff(t: Tenant, path: string, init: RequestInit = {}) {
  const headers = new Headers({ ...KICKOFF, ...Object.fromEntries(new Headers(init.headers)) });
  return t.fetch(`/fhir/r4/${t.orgId}${path}`, { ...init, headers });
}

const jobOf = (res: Response) => res.headers.get("content-location")!.split("/").pop()!;

async function runJob(t: Tenant, jobId: string) {
  await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, jobId));
}

async function complete(t: Tenant, res: Response): Promise<Manifest> {
  expect(res.status).toBe(202);
  const statusUrl = res.headers.get("content-location")!;
  expect(statusUrl).toMatch(new RegExp(`/fhir/r4/${t.orgId}/bulkdata/status/[0-9a-f-]{36}$`));
  const path = new URL(statusUrl).pathname;
  const running = await t.fetch(path);
  expect(running.status).toBe(202);
  expect(running.headers.get("x-progress")).toMatch(/%/);
  expect(running.headers.get("retry-after")).toBe("2");
  await runJob(t, jobOf(res));
  const done = await t.fetch(path);
  expect(done.status).toBe(200);
  expect(done.headers.get("content-type")).toMatch(/^application\/json/);
  return (await done.json()) as Manifest;
}

async function download(t: Tenant, url: string, headers: Record<string, string> = {}) {
  const res = await t.fetch(new URL(url).pathname, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/fhir+ndjson");
  const text = await res.text();
  return text.trimEnd().split("\n").map((l) => JSON.parse(l) as { resourceType: string; id: string; subject?: { reference: string }; meta?: { tag?: { code: string }[] } });
}

describe("Bulk Data export", () => {
  it("exports the whole organization: kick-off, status, manifest, NDJSON files with exact counts", async () => {
    const t = await createTenant();
    await seed(t);
    const res = await kickoff(t, "/$export");
    const manifest = await complete(t, res);
    expect(manifest.request).toBe(`http://localhost/fhir/r4/${t.orgId}/$export`);
    expect(manifest.requiresAccessToken).toBe(true);
    expect(manifest.transactionTime).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(manifest.error).toEqual([]);
    const counts = Object.fromEntries(manifest.output.map((o) => [o.type, o.count]));
    expect(counts).toEqual({ Patient: 3, Observation: 12, Condition: 1 });
    for (const o of manifest.output) {
      const lines = await download(t, o.url);
      expect(lines).toHaveLength(o.count);
      expect(lines.every((r) => r.resourceType === o.type)).toBe(true);
    }
  });

  it("serves gzip when the client accepts it", async () => {
    const t = await createTenant();
    await seed(t, 1, 1);
    const manifest = await complete(t, await kickoff(t, "/$export?_type=Patient"));
    const res = await t.fetch(new URL(manifest.output[0]!.url).pathname, { headers: { "accept-encoding": "gzip" } });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    // The Workers fetch client decodes Content-Encoding itself, as browsers and curl --compressed do.
    expect(JSON.parse((await res.text()).trim())).toMatchObject({ resourceType: "Patient" });
  });

  it("compresses only what Accept-Encoding accepts: q=0 and identity are honoured", async () => {
    const t = await createTenant();
    await seed(t, 1, 1);
    const path = new URL((await complete(t, await kickoff(t, "/$export?_type=Patient"))).output[0]!.url).pathname;
    const cases: [string | undefined, string | null][] = [
      [undefined, null],
      ["identity", null],
      ["gzip;q=0, identity", null],
      ["gzip;q=0", null],
      ["*, gzip;q=0", null],
      ["br", null],
      ["gzip;q=0.5", "gzip"],
      ["identity;q=0.1, gzip", "gzip"],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const res = await t.fetch(path, { headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } });
      expect({ acceptEncoding, status: res.status, encoding: res.headers.get("content-encoding") }).toEqual({ acceptEncoding, status: 200, encoding: expected });
      expect(res.headers.get("vary")).toMatch(/accept-encoding/i);
      expect(JSON.parse((await res.text()).trim())).toMatchObject({ resourceType: "Patient" });
    }
    const refused = await t.fetch(path, { headers: { "accept-encoding": "br, identity;q=0" } });
    expect(refused.status).toBe(406);
    expect(await refused.json()).toMatchObject({ resourceType: "OperationOutcome" });
  });

  it("accepts POST kick-off with Parameters", async () => {
    const t = await createTenant();
    await seed(t, 2, 1);
    const res = await kickoff(t, "/$export", {
      method: "POST",
      body: JSON.stringify({ resourceType: "Parameters", parameter: [{ name: "_type", valueString: "Patient" }, { name: "_outputFormat", valueString: "ndjson" }] }),
      headers: { "content-type": "application/fhir+json" },
    });
    expect((await complete(t, res)).output).toEqual([expect.objectContaining({ type: "Patient", count: 2 })]);
  });

  it("Patient-level export holds Patient-compartment resources, the patient parameter narrows it", async () => {
    const t = await createTenant();
    const { patientIds } = await seed(t);
    const all = await complete(t, await kickoff(t, "/Patient/$export?_type=Patient,Observation"));
    expect(Object.fromEntries(all.output.map((o) => [o.type, o.count]))).toEqual({ Patient: 3, Observation: 12 });
    const one = await complete(
      t,
      await kickoff(t, "/Patient/$export", {
        method: "POST",
        body: JSON.stringify({ resourceType: "Parameters", parameter: [{ name: "patient", valueReference: { reference: `Patient/${patientIds[2]}` } }] }),
        headers: { "content-type": "application/fhir+json" },
      }),
    );
    expect(Object.fromEntries(one.output.map((o) => [o.type, o.count]))).toEqual({ Patient: 1, Observation: 4 });
    const obs = await download(t, one.output.find((o) => o.type === "Observation")!.url);
    expect(new Set(obs.map((o) => o.subject?.reference))).toEqual(new Set([`Patient/${patientIds[2]}`]));
  });

  it("Group-level export holds the members' compartments only", async () => {
    const t = await createTenant();
    const { groupId } = await seed(t);
    const manifest = await complete(t, await kickoff(t, `/Group/${groupId}/$export?_type=Patient,Observation,Condition`));
    expect(Object.fromEntries(manifest.output.map((o) => [o.type, o.count]))).toEqual({ Patient: 2, Observation: 8, Condition: 1 });
    expect((await kickoff(t, "/Group/does-not-exist/$export")).status).toBe(404);
  });

  it("applies _typeFilter with the search engine and _since", async () => {
    const t = await createTenant();
    await seed(t);
    const filtered = await complete(t, await kickoff(t, `/$export?_type=Observation&_typeFilter=${encodeURIComponent("Observation?code=http://loinc.org|8867-4")}`));
    expect(filtered.output).toEqual([expect.objectContaining({ type: "Observation", count: 3 })]);
    const later = await complete(t, await kickoff(t, `/$export?_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, "Z"))}`)).catch(() => null);
    expect(later).toBeNull();
    const recent = await complete(t, await kickoff(t, `/$export?_type=Patient&_since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`));
    expect(recent.output[0]?.count).toBe(3);
  });

  it("reports a bad _typeFilter query in the error file and still exports the rest", async () => {
    const t = await createTenant();
    await seed(t, 1, 1);
    const manifest = await complete(t, await kickoff(t, `/$export?_type=Patient,Observation&_typeFilter=${encodeURIComponent("Observation?no-such-param=1")}`));
    expect(manifest.output.map((o) => o.type)).toEqual(["Patient"]);
    expect(manifest.error).toHaveLength(1);
    const [outcome] = await download(t, manifest.error[0]!.url);
    expect(outcome!.resourceType).toBe("OperationOutcome");
  });

  it("applies _elements and marks the resources SUBSETTED", async () => {
    const t = await createTenant();
    await seed(t, 1, 0);
    const manifest = await complete(t, await kickoff(t, "/$export?_type=Patient&_elements=name"));
    const [p] = await download(t, manifest.output[0]!.url);
    expect(Object.keys(p!).sort()).toEqual(["id", "meta", "name", "resourceType"]);
    expect(p!.meta?.tag?.some((tag) => tag.code === "SUBSETTED")).toBe(true);
  });

  it("rejects invalid kick-offs with a 400 OperationOutcome", async () => {
    const t = await createTenant();
    for (const [path, headers] of [
      ["/$export", { accept: "" }],
      ["/$export", { prefer: "" }],
      ["/$export?_type=MissingType", {}],
      ["/$export?_outputFormat=application/xml", {}],
      ["/$export?_since=2099-01-01T00:00:00Z", {}],
    ] as const) {
      const res = await kickoff(t, path, { headers });
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
    }
  });

  it("cancels: DELETE answers 202, then the status is 404 and the files are gone", async () => {
    const t = await createTenant();
    await seed(t, 1, 1);
    const res = await kickoff(t, "/$export");
    const manifest = await complete(t, res);
    const statusPath = new URL(res.headers.get("content-location")!).pathname;
    expect((await t.fetch(statusPath, { method: "DELETE" })).status).toBe(202);
    expect((await t.fetch(statusPath)).status).toBe(404);
    expect((await t.fetch(new URL(manifest.output[0]!.url).pathname)).status).toBe(404);
    expect((await t.fetch(statusPath, { method: "DELETE" })).status).toBe(404);
  });

  it("cleans up an expired export", async () => {
    const t = await createTenant();
    await seed(t, 1, 0);
    const res = await kickoff(t, "/$export?_type=Patient");
    await complete(t, res);
    await runJob(t, jobOf(res)); // the expiry alarm
    expect((await t.fetch(new URL(res.headers.get("content-location")!).pathname)).status).toBe(404);
  });

  it("allows the configured number of concurrent exports, then 429 with Retry-After", async () => {
    const t = await createTenant({ limits: { concurrentExports: 2 } });
    const started = Date.now();
    const first = await kickoff(t, "/$export");
    const second = await kickoff(t, "/$export");
    expect([first.status, second.status]).toEqual([202, 202]);
    const third = await kickoff(t, "/$export");
    expect(third.status).toBe(429);
    // No export has finished yet, so a short hint rather than the 5-minute lease.
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(third.headers.get("retry-after"))).toBeLessThanOrEqual(30);
    await runJob(t, jobOf(first));
    expect((await kickoff(t, "/$export")).status).toBe(202);
    // Now one export's hold is known: the hint comes from it (what it had left past the running
    // one's time, or as long again), never more than the time since the first kick-off, not 30 s.
    const fourth = await kickoff(t, "/$export");
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get("retry-after"))).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
  });

  it("never shows one organization's export to another", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await seed(a, 1, 1);
    const res = await kickoff(a, "/$export");
    const manifest = await complete(a, res);
    const jobId = jobOf(res);
    // B on its own base cannot see A's job id, and cannot use A's URLs.
    expect((await b.fetch(`/fhir/r4/${b.orgId}/bulkdata/status/${jobId}`)).status).toBe(404);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/bulkdata/download/${jobId}/Patient-1.ndjson`)).status).toBe(404);
    expect((await b.fetch(new URL(manifest.output[0]!.url).pathname)).status).toBe(403);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/bulkdata/status/${jobId}`, { method: "DELETE" })).status).toBe(404);
    // An export of B holds none of A's data.
    const own = await complete(b, await kickoff(b, "/$export"));
    expect(own.output).toEqual([]);
    // Without a key, the download is refused (requiresAccessToken is true).
    expect((await authedFetch(a.orgId, "cdis_invalid")(new URL(manifest.output[0]!.url).pathname)).status).toBe(401);
  });

  it("needs the export permission and audits kick-offs and downloads", async () => {
    const t = await createTenant();
    await seed(t, 1, 0);
    const manifest = await complete(t, await kickoff(t, "/$export?_type=Patient"));
    await download(t, manifest.output[0]!.url);
    // Operation audits arrive through the audit queue.
    const descriptions = await eventually(
      async () => {
        const audits = (await (await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?subtype=operation&_count=100`)).json()) as { entry?: { resource: { entity?: { description?: string }[] } }[] };
        return (audits.entry ?? []).flatMap((e) => e.resource.entity?.map((x) => x.description ?? "") ?? []);
      },
      (d) => d.length >= 2,
    );
    expect(descriptions.some((d) => d.startsWith("$export /fhir/r4/"))).toBe(true);
    expect(descriptions.some((d) => d.startsWith("$export download "))).toBe(true);
    const clinician = await createTenant({ role: "clinician" });
    expect((await kickoff(clinician, "/$export")).status).toBe(403);
  });
});

// Behaviours the SMART Bulk Data test suite (bdt) checks, found failing when it was run
// against this service (docs/bulk-export-bdt.md).
describe("Bulk Data export: includeAssociatedData", () => {
  const provenance = (id: string, recorded: string, ...targets: string[]) => ({
    resourceType: "Provenance" as const,
    id,
    recorded,
    target: targets.map((reference) => ({ reference })),
    agent: [{ who: { display: "interface engine" } }],
  });

  /** Patients pa, pb; Observations oa (pa), ob (pb); a Condition; Provenance over them at known times. */
  async function seedProvenance(t: Tenant) {
    await put(t, { resourceType: "Patient", id: "pa", gender: "female" });
    await put(t, { resourceType: "Patient", id: "pb", gender: "male" });
    for (const [id, patient] of [["oa", "pa"], ["ob", "pb"]] as const) {
      await put(t, { resourceType: "Observation", id, status: "final", code: { text: "pulse" }, subject: { reference: `Patient/${patient}` } });
    }
    await put(t, { resourceType: "Condition", id: "ca", subject: { reference: "Patient/pa" }, code: { text: "Hypertension" } });
    await put(t, provenance("p1", "2026-01-01T00:00:00Z", "Patient/pa", "Observation/oa"));
    await put(t, provenance("p2", "2026-02-01T00:00:00Z", "Patient/pa/_history/1"));
    await put(t, provenance("p3", "2026-01-05T00:00:00Z", "Observation/ob"));
    await put(t, provenance("p4", "2026-03-01T00:00:00Z", "Condition/ca"));
    await put(t, provenance("p5", "2025-06-01T00:00:00Z", "Patient/pa"));
  }

  async function provenanceIds(t: Tenant, path: string): Promise<string[]> {
    const manifest = await complete(t, await kickoff(t, path));
    expect(manifest.error).toEqual([]);
    const files = manifest.output.filter((o) => o.type === "Provenance");
    const lines = (await Promise.all(files.map((f) => download(t, f.url)))).flat();
    expect(lines.every((r) => r.resourceType === "Provenance")).toBe(true);
    expect(files.reduce((n, f) => n + f.count, 0)).toBe(lines.length);
    return lines.map((r) => r.id).sort();
  }

  it("RelevantProvenanceResources adds every Provenance that targets an exported resource, once", async () => {
    const t = await createTenant();
    await seedProvenance(t);
    expect(await provenanceIds(t, "/$export?_type=Patient,Observation&includeAssociatedData=RelevantProvenanceResources")).toEqual(["p1", "p2", "p3", "p5"]);
    // Every exportable type: the Condition's Provenance too.
    expect(await provenanceIds(t, "/$export?includeAssociatedData=RelevantProvenanceResources")).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    // Both values: the relevant set (a superset of the latest).
    expect(await provenanceIds(t, "/$export?_type=Patient,Observation&includeAssociatedData=LatestProvenanceResources,RelevantProvenanceResources")).toEqual(["p1", "p2", "p3", "p5"]);
  });

  it("LatestProvenanceResources adds only each exported resource's most recently recorded Provenance", async () => {
    const t = await createTenant();
    await seedProvenance(t);
    // pa: p2 (Feb) beats p1 (Jan) and p5 (2025); oa: p1; ob: p3.
    expect(await provenanceIds(t, "/$export?_type=Patient,Observation&includeAssociatedData=LatestProvenanceResources")).toEqual(["p1", "p2", "p3"]);
    expect(await provenanceIds(t, "/$export?_type=Patient&includeAssociatedData=LatestProvenanceResources")).toEqual(["p2"]);
    // A later Provenance for ob replaces p3; a deleted one no longer counts.
    await put(t, provenance("p6", "2026-04-01T00:00:00Z", "Observation/ob"));
    expect(await provenanceIds(t, "/$export?_type=Observation&includeAssociatedData=LatestProvenanceResources")).toEqual(["p1", "p6"]);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Provenance/p6`, { method: "DELETE" })).status).toBe(204);
    expect(await provenanceIds(t, "/$export?_type=Observation&includeAssociatedData=LatestProvenanceResources")).toEqual(["p1", "p3"]);
  });

  it("follows the export's own selection: patient compartment, _typeFilter, _since", async () => {
    const t = await createTenant();
    await seedProvenance(t);
    expect(await provenanceIds(t, "/Patient/$export?includeAssociatedData=RelevantProvenanceResources")).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    const narrowed = await complete(
      t,
      await kickoff(t, "/Patient/$export?includeAssociatedData=RelevantProvenanceResources", {
        method: "POST",
        headers: { "content-type": "application/fhir+json" },
        body: JSON.stringify({ resourceType: "Parameters", parameter: [{ name: "patient", valueReference: { reference: "Patient/pb" } }] }),
      }),
    );
    const pbProvenance = await download(t, narrowed.output.find((o) => o.type === "Provenance")!.url);
    expect(pbProvenance.map((r) => r.id)).toEqual(["p3"]);
    expect(await provenanceIds(t, "/$export?_type=Observation&_typeFilter=Observation%3Fsubject%3DPatient%2Fpb&includeAssociatedData=RelevantProvenanceResources")).toEqual(["p3"]);
    const since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await put(t, { resourceType: "Patient", id: "pb", gender: "other" });
    expect(await provenanceIds(t, `/$export?_since=${since}&includeAssociatedData=RelevantProvenanceResources`)).toEqual([]);
    await put(t, provenance("p7", "2026-05-01T00:00:00Z", "Patient/pb"));
    expect(await provenanceIds(t, `/$export?_since=${since}&includeAssociatedData=RelevantProvenanceResources`)).toEqual(["p7"]);
  });

  it("never adds another organization's Provenance, even for the same resource ids", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await seedProvenance(a);
    await put(b, { resourceType: "Patient", id: "pa", gender: "female" });
    await put(b, provenance("pb-only", "2027-01-01T00:00:00Z", "Patient/pa"));
    expect(await provenanceIds(a, "/$export?_type=Patient&includeAssociatedData=LatestProvenanceResources")).toEqual(["p2"]);
    expect(await provenanceIds(b, "/$export?_type=Patient&includeAssociatedData=RelevantProvenanceResources")).toEqual(["pb-only"]);
  });

  it("refuses unsupported values, unless handling=lenient", async () => {
    const t = await createTenant();
    const res = await kickoff(t, "/$export?includeAssociatedData=LatestProvenanceResources,_custom");
    expect(res.status).toBe(400);
    const outcome = (await res.json()) as { issue: { diagnostics: string }[] };
    expect(JSON.stringify(outcome)).toMatch(/includeAssociatedData value _custom/);
  });
});

describe("Bulk Data export: what bdt checks", () => {
  it("dates its responses, so the manifest's Expires can be checked against Date", async () => {
    const t = await createTenant();
    await seed(t, 1, 0);
    const res = await kickoff(t, "/$export?_type=Patient");
    expect(Date.parse(res.headers.get("date") ?? "")).toBeGreaterThan(Date.now() - 60_000);
    await complete(t, res);
    const done = await t.fetch(new URL(res.headers.get("content-location")!).pathname);
    const date = Date.parse(done.headers.get("date") ?? "");
    const expires = Date.parse(done.headers.get("expires") ?? "");
    expect(Number.isNaN(date)).toBe(false);
    expect(expires - date).toBeGreaterThan(3_600_000);
  });

  it("requires Accept: application/fhir+json (or any type) on kick-off; plain application/json is refused", async () => {
    const t = await createTenant();
    const refused = await kickoff(t, "/Patient/$export", { headers: { accept: "application/json" } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
    const post = await kickoff(t, "/$export", { method: "POST", body: JSON.stringify({ resourceType: "Parameters" }), headers: { accept: "application/json", "content-type": "application/fhir+json" } });
    expect(post.status).toBe(400);
    expect((await kickoff(t, "/$export", { headers: { accept: "*/*" } })).status).toBe(202);
    expect((await kickoff(t, "/$export", { headers: { accept: "application/fhir+json;q=0, */*;q=0" } })).status).toBe(400);
  });

  it("takes repeated _type, _typeFilter and _elements query parameters like comma-separated lists", async () => {
    const t = await createTenant();
    await seed(t);
    const typeFilter = [`Observation?code=${encodeURIComponent("http://loinc.org|8867-4")}`, "Observation?value-quantity=63"].map(encodeURIComponent);
    const filtered = await complete(t, await kickoff(t, `/$export?_type=Observation&_type=Condition&_typeFilter=${typeFilter[0]}&_typeFilter=${typeFilter[1]}`));
    // 8867-4 is the first of each patient's four observations (value 60); 63 is the fourth: 3 + 3.
    expect(Object.fromEntries(filtered.output.map((o) => [o.type, o.count]))).toEqual({ Observation: 6, Condition: 1 });

    const subset = await complete(t, await kickoff(t, "/$export?_type=Patient&_elements=id&_elements=Patient.gender"));
    const patients = await download(t, subset.output[0]!.url);
    expect(patients).toHaveLength(3);
    expect(Object.keys(patients[0]!).sort()).toEqual(["gender", "id", "meta", "resourceType"]);
  });

  it("answers a cancelled export's status URL 404 with an OperationOutcome, as application/json when asked for it", async () => {
    const t = await createTenant();
    const res = await kickoff(t, "/$export");
    const statusPath = new URL(res.headers.get("content-location")!).pathname;
    expect((await t.fetch(statusPath, { method: "DELETE" })).status).toBe(202);
    for (const method of ["GET", "DELETE"]) {
      const gone = await t.fetch(statusPath, { method, headers: { accept: "application/json" } });
      expect(gone.status).toBe(404);
      expect(gone.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(((await gone.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
    }
    const fhir = await t.fetch(statusPath, { headers: { accept: "application/fhir+json" } });
    expect(fhir.headers.get("content-type")).toBe("application/fhir+json; charset=utf-8");
  });

  it("reports parameters ignored under Prefer: handling=lenient as warnings in the error file", async () => {
    const t = await createTenant();
    await seed(t, 1, 0);
    const strict = await kickoff(t, "/$export?_type=Patient&includeAssociatedData=_customBundle");
    expect(strict.status).toBe(400);
    const res = await kickoff(t, "/$export?_type=Patient&includeAssociatedData=_customBundle", { headers: { prefer: "respond-async, handling=lenient" } });
    const manifest = await complete(t, res);
    expect(manifest.output).toEqual([expect.objectContaining({ type: "Patient", count: 1 })]);
    expect(manifest.error).toEqual([expect.objectContaining({ type: "OperationOutcome", count: 1 })]);
    const [outcome] = (await download(t, manifest.error[0]!.url)) as unknown as { resourceType: string; issue: { severity: string; code: string; diagnostics: string }[] }[];
    expect(outcome).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "warning", code: "not-supported" }] });
    expect(outcome!.issue[0]!.diagnostics).toMatch(/includeAssociatedData/);
  });

  it("declares the export operations in the CapabilityStatement", async () => {
    const t = await createTenant();
    const cs = (await (await t.fetch(`/fhir/r4/${t.orgId}/metadata`)).json()) as {
      instantiates: string[];
      rest: { operation: { name: string; definition: string }[]; resource: { type: string; operation: { name: string }[] }[] }[];
    };
    expect(cs.instantiates).toContain("http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data");
    expect(cs.rest[0]!.operation).toContainEqual({ name: "export", definition: "http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export" });
    const ops = (type: string) => cs.rest[0]!.resource.find((r) => r.type === type)!.operation.map((o) => o.name);
    expect(ops("Patient")).toContain("patient-export");
    expect(ops("Group")).toContain("group-export");
    expect(ops("Observation")).not.toContain("patient-export");
  });
});
