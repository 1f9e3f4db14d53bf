// /api/docs works offline: the page references no other origin, and its viewer script is
// served by the Worker itself.
import { describe, expect, it } from "vitest";
import { call } from "../support/tenants";

describe("API reference page", () => {
  it("references no external origin and loads a viewer script the Worker serves", async () => {
    const page = await call("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    // No absolute URL at all (a scheme-relative //host would be one too).
    expect(html.match(/(?:https?:)?\/\/[\w.-]+\.[a-z]{2,}/gi) ?? []).toEqual([]);
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(["/api/docs/viewer.js"]);
    expect(html).toContain('"url": "/api/openapi.json"');
    expect(html).toContain('"withDefaultFonts": false');

    const script = await call(scripts[0]!);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    const js = await script.text();
    expect(js.length).toBeGreaterThan(100_000);
    expect(js).toContain("createApiReference");
  });
});
