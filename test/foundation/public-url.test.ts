// Absolute URLs come from PUBLIC_BASE_URL, never from the request's Host header (#20):
// a client following a link must not be sent, with its key, to a host an attacker named.
import { createExecutionContext, runDurableObjectAlarm, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { buildApp } from "../../src/main/app";
import type { Bundle } from "../../src/features/fhir/port";
import { parsePublicBaseUrl } from "../../src/platform/http/public-url";
import { createTenant } from "../support/tenants";

const app = buildApp();
const PUBLIC = "https://fhir.example.org/cdis";

/** Fetches the app with some settings changed, at `http://evil.example` (the Host header). */
async function fetchWith(vars: Record<string, string | undefined>, t: { orgId: string; key: string }, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${t.key}`);
  headers.set("x-organization-id", t.orgId);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`http://evil.example${path}`, { ...init, headers }), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("public base URL", () => {
  it("builds every absolute URL of the FHIR API from PUBLIC_BASE_URL, whatever the Host", async () => {
    const t = await createTenant();
    const f = (path: string, init?: RequestInit) => fetchWith({ PUBLIC_BASE_URL: `${PUBLIC}/` }, t, `/fhir/r4/${t.orgId}${path}`, init);
    const base = `${PUBLIC}/fhir/r4/${t.orgId}`;
    const json = { "content-type": "application/fhir+json" };
    const created = await f("/Patient", { method: "POST", headers: json, body: JSON.stringify({ resourceType: "Patient", gender: "male" }) });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toMatch(new RegExp(`^${base}/Patient/[^/]+/_history/1$`));
    await f("/Patient", { method: "POST", headers: json, body: JSON.stringify({ resourceType: "Patient", gender: "male" }) });

    const bundles: Bundle[] = [];
    for (const path of ["/Patient?_count=1", "/Patient/_history?_count=1", "/_history?_count=1"]) {
      const res = await f(path);
      expect(res.status).toBe(200);
      bundles.push((await res.json()) as Bundle);
    }
    const urls = bundles.flatMap((b) => [...(b.link ?? []).map((l) => l.url), ...(b.entry ?? []).map((e) => e.fullUrl)]);
    expect(urls.length).toBeGreaterThan(6);
    for (const url of urls) expect(url?.startsWith(`${base}/`) || url?.startsWith(`${base}?`)).toBe(true);
    expect(bundles[0]!.link!.map((l) => l.relation)).toEqual(["self", "next"]);

    const metadata = (await (await f("/metadata")).json()) as { implementation: { url: string } };
    expect(metadata.implementation.url).toBe(base);
  });

  it("builds the export's status, manifest and download URLs from PUBLIC_BASE_URL", async () => {
    const t = await createTenant();
    const vars = { PUBLIC_BASE_URL: PUBLIC };
    await fetchWith(vars, t, `/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient" }) });
    const kicked = await fetchWith(vars, t, `/fhir/r4/${t.orgId}/$export?_type=Patient`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    expect(kicked.status).toBe(202);
    const status = kicked.headers.get("content-location")!;
    expect(status).toMatch(new RegExp(`^${PUBLIC}/fhir/r4/${t.orgId}/bulkdata/status/[0-9a-f-]{36}$`));
    const jobId = status.split("/").pop()!;
    await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, jobId));
    const done = await fetchWith(vars, t, `/fhir/r4/${t.orgId}/bulkdata/status/${jobId}`);
    const manifest = (await done.json()) as { request: string; output: { url: string }[] };
    expect(manifest.request).toBe(`${PUBLIC}/fhir/r4/${t.orgId}/$export?_type=Patient`);
    expect(manifest.output[0]!.url).toBe(`${PUBLIC}/fhir/r4/${t.orgId}/bulkdata/download/${jobId}/Patient-1.ndjson`);
  });

  it("outside development, refuses to guess: a missing or bad PUBLIC_BASE_URL is a configuration error", async () => {
    const t = await createTenant();
    for (const vars of [{ DEV_MODE: undefined }, { DEV_MODE: undefined, PUBLIC_BASE_URL: "fhir.example.org" }]) {
      for (const path of ["/health", `/fhir/r4/${t.orgId}/Patient`]) {
        const res = await fetchWith(vars, t, path);
        expect(res.status).toBe(500);
        const text = await res.text();
        expect(text).toContain("CONFIGURATION_ERROR");
        expect(text).toContain("PUBLIC_BASE_URL");
        expect(text).not.toContain("evil.example");
      }
    }
  });

  it("in development, uses the request's own origin", async () => {
    const t = await createTenant();
    const res = await fetchWith({}, t, `/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: "{\"resourceType\":\"Patient\"}" });
    expect(res.headers.get("location")).toMatch(/^http:\/\/evil\.example\/fhir\/r4\//);
  });

  it("parses the setting strictly", () => {
    expect(parsePublicBaseUrl("https://a.example/")).toBe("https://a.example");
    expect(parsePublicBaseUrl("https://a.example/x//")).toBe("https://a.example/x");
    for (const bad of ["a.example", "ftp://a.example", "https://u:p@a.example", "https://a.example/?q", "https://a.example/#f"]) {
      expect(parsePublicBaseUrl(bad)).toHaveProperty("error");
    }
  });
});
