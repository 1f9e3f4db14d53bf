// Request logs and metrics: one JSON line and one data point per request, with the route pattern
// rather than the path, and never a secret or patient data, even for a run that handled both.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/main/app";
import { makeLogger } from "../../src/platform/observability/log";
import { appFetch } from "../support/app-fetch";
import { createTenant } from "../support/tenants";

afterEach(() => vi.restoreAllMocks());

function recordingDataset() {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, dataset: { writeDataPoint: (p: AnalyticsEngineDataPoint) => points.push(p) } as AnalyticsEngineDataset };
}

describe("request logs and metrics", () => {
  it("log each request once with its route pattern, org, key and status, and keep secrets and PHI out", async () => {
    const t = await createTenant();
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const { points, dataset } = recordingDataset();
    const call = appFetch(buildApp(), t, { ...env, LOG_LEVEL: "debug", METRICS: dataset });

    const secret = "s3cr3t-token-for-the-ehr";
    const key = (await (await call("/api/api-keys", { method: "POST", body: JSON.stringify({ name: "ingest", role: "service" }), headers: { "content-type": "application/json" } })).json()) as { key: string };
    const connector = await call("/api/connectors", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "ehr", type: "fhir", endpoint: "https://ehr.example.org/fhir", auth: { kind: "bearer" }, credentials: { token: secret } }),
    });
    expect(connector.status, await connector.clone().text()).toBe(201);
    const created = await call(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Quixotic", given: ["Zebulon"] }], birthDate: "1961-07-04" } });
    const patient = (await created.json()) as { id: string };
    await call(`/fhir/r4/${t.orgId}/Patient?family=Quixotic&birthdate=1961-07-04`);
    expect((await call(`/fhir/r4/${t.orgId}/Patient/${patient.id}`)).status).toBe(200);
    expect((await call("/api/pipelines/nope")).status).toBe(404);

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === "request");
    expect(records.length).toBe(6);
    const read = records.find((r) => r.route === "/fhir/r4/:orgId/:type/:id" && r.method === "GET")!;
    expect(read).toMatchObject({ level: "info", org: t.orgId, key_id: expect.any(String), status: 200 });
    expect(typeof read.duration_ms).toBe("number");
    expect(typeof read.request_id).toBe("string");
    expect(records.find((r) => r.status === 404)).toMatchObject({ error_code: "PIPELINE_NOT_FOUND" });

    const everything = lines.join("\n");
    for (const forbidden of [t.key, key.key, secret, "Quixotic", "Zebulon", "1961-07-04", patient.id]) expect(everything).not.toContain(forbidden);

    const requests = points.filter((p) => p.blobs?.[0] === "request");
    expect(requests.length).toBe(6);
    expect(requests.map((p) => p.blobs?.[2])).toContain("/fhir/r4/:orgId/:type/:id");
    expect(requests.every((p) => p.indexes?.[0] === t.orgId)).toBe(true);
    expect(JSON.stringify(points)).not.toContain("Quixotic");
  });

  it("writes nothing below its level, drops fields named like secrets and cuts long values", () => {
    const out: string[] = [];
    const log = makeLogger("warn", (l) => out.push(l));
    log.info("hidden");
    log.warn("shown", { api_key: "cdis_x", Authorization: "Bearer y", client_secret: "z", note: "n".repeat(1000), count: 3 });
    expect(out).toHaveLength(1);
    const line = JSON.parse(out[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: "warn", msg: "shown", count: 3 });
    expect(Object.keys(line)).not.toEqual(expect.arrayContaining(["api_key"]));
    expect(out[0]).not.toMatch(/cdis_x|Bearer y|"z"/);
    expect(String(line.note).length).toBeLessThan(310);
  });
});
