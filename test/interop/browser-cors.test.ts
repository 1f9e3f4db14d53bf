// CORS with a real browser: Chromium loads a page from one origin and calls the service on
// another, as a browser-based FHIR client or console would. The browser sends the preflight
// itself (the request carries Authorization and X-Organization-ID), then the request, and the
// page reads the exposed headers. An origin CORS_ORIGINS does not list is refused by the browser.
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type InteropService, interopService } from "./service";

let worker: InteropService;
let browser: Browser;
// Two page servers on loopback ports of their own (test/browser/setup/service.ts): the service's
// CORS_ORIGINS lists the first.
let allowed: string;
let other: string;

beforeAll(async () => {
  ({ allowed, other } = inject("corsPages"));
  worker = interopService(import.meta.filename);
  browser = await puppeteer.connect({ browserWSEndpoint: inject("browserWs") });
});

afterAll(async () => {
  await browser?.disconnect();
});

interface Outcome {
  ok?: boolean;
  status?: number;
  remaining?: string | null;
  etag?: string | null;
  body?: unknown;
  failed?: string;
}

/** Runs fetch(url, init) in a page loaded from `origin`, as that page's script would. */
async function fetchFrom(origin: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Outcome> {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(async (u: string, i: typeof init) => {
      try {
        const res = await fetch(u, i);
        return { ok: res.ok, status: res.status, remaining: res.headers.get("x-ratelimit-remaining"), etag: res.headers.get("etag"), body: await res.json() };
      } catch (e) {
        return { failed: String(e) };
      }
    }, url, init);
  } finally {
    await page.close();
  }
}

describe("CORS from a browser", () => {
  it("lets a listed origin create and read FHIR resources with credentials, and read the exposed headers", async () => {
    const headers = { ...worker.headers, "content-type": "application/fhir+json", prefer: "return=representation" };
    const created = await fetchFrom(allowed, `${worker.url}/fhir/r4/${worker.orgId}/Patient`, { method: "POST", headers, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Browser" }] }) });
    expect(created.status).toBe(201);
    expect(created.etag).toBe('W/"1"');
    expect(created.remaining).toMatch(/^\d+$/);
    const id = (created.body as { id: string }).id;
    const read = await fetchFrom(allowed, `${worker.url}/fhir/r4/${worker.orgId}/Patient/${id}`, { headers: worker.headers });
    expect(read).toMatchObject({ status: 200, body: { resourceType: "Patient", id } });
  });

  it("answers the preflight without credentials, naming what a FHIR client sends", async () => {
    const res = await fetch(`${worker.url}/fhir/r4/${worker.orgId}/Patient`, {
      method: "OPTIONS",
      headers: { origin: allowed, "access-control-request-method": "PUT", "access-control-request-headers": "authorization,x-organization-id,if-match,prefer" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(allowed);
    const allowedHeaders = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    for (const h of ["authorization", "x-organization-id", "prefer", "if-match", "if-none-exist"]) expect(allowedHeaders).toContain(h);
    expect(res.headers.get("access-control-allow-methods")).toContain("PUT");
  });

  it("is refused by the browser for an origin CORS_ORIGINS does not list", async () => {
    const refused = await fetchFrom(other, `${worker.url}/api/organization`, { headers: worker.headers });
    expect(refused.failed).toMatch(/TypeError/);
    // The public CapabilityStatement too: no CORS header for an unlisted origin.
    const res = await fetch(`${worker.url}/fhir/r4/${worker.orgId}/metadata`, { headers: { origin: other } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
