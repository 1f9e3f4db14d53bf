// Spec section 7: every failure has the documented shape and a 4xx where the caller is at fault.
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import type { HttpEnv } from "../../src/platform/http/http-env";
import { onError } from "../../src/platform/http/error-handler";
import { requestId } from "../../src/platform/http/request-id";
import { call, createTenant } from "../support/tenants";

describe("error shapes", () => {
  it("unknown management routes answer 404 in the management shape", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/does-not-exist");
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; status: number; request_id: string } };
    expect(body.error).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("unknown routes outside /api and /fhir are 404 too", async () => {
    expect((await call("/nothing-here")).status).toBe(404);
  });

  it("malformed JSON is a 400", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/api-keys", {
      method: "POST",
      body: '{"name": "x", "role": ',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("BAD_REQUEST");
  });

  it("a non-JSON content type is a 415", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/api-keys", {
      method: "POST",
      body: "name=x&role=admin",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("a body over MAX_BODY_BYTES is a 413", async () => {
    const t = await createTenant();
    const big = JSON.stringify({ name: "x".repeat(17 * 1024 * 1024), role: "admin" });
    const res = await t.fetch("/api/api-keys", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("a body without a Content-Length is held to the same limit as it arrives, and passed on whole within it", async () => {
    const t = await createTenant();
    const streamed = (parts: string[]) => {
      const bytes = parts.map((p) => new TextEncoder().encode(p));
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = bytes.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
    };
    const mib = "x".repeat(1024 * 1024);
    const over = await t.fetch("/api/api-keys", { method: "POST", body: streamed(['{"name":"', ...Array.from({ length: 17 }, () => mib), '","role":"admin"}']), headers: { "content-type": "application/json" } });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
    const within = await t.fetch("/api/api-keys", { method: "POST", body: streamed(['{"name":"stre', 'amed key","ro', 'le":"admin"}']), headers: { "content-type": "application/json" } });
    expect(within.status).toBe(201);
    expect(((await within.json()) as { name: string }).name).toBe("streamed key");
  });

  it("unexpected errors are a 500 with a request id and no internals", async () => {
    const app = new Hono<HttpEnv>();
    app.use("*", requestId);
    app.onError(onError);
    app.get("/boom", () => {
      throw new TypeError("secret internal detail at /srv/x.ts:12");
    });
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await app.request("/boom", { headers: { "x-request-id": "req-123" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({ error: { code: "INTERNAL", status: 500, request_id: "req-123" } });
    expect(log).toHaveBeenCalledOnce();
    expect(String(log.mock.calls[0]?.[0])).toContain("secret internal detail");
    log.mockRestore();
  });

  it("errors under /fhir are OperationOutcomes", async () => {
    const t = await createTenant();
    const res = await call(`/fhir/r4/${t.orgId}/Patient`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error", code: "login" }] });
  });

  it("echoes a sane X-Request-ID and replaces an unsafe one", async () => {
    expect((await call("/health", { headers: { "x-request-id": "abc-123" } })).headers.get("x-request-id")).toBe("abc-123");
    const replaced = (await call("/health", { headers: { "x-request-id": "<script>" } })).headers.get("x-request-id");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("OpenAPI", () => {
  it("publishes an OpenAPI 3.1 document listing every endpoint, and a reference page", async () => {
    const res = await call("/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/health", "/api/organization", "/api/api-keys", "/api/api-keys/{id}"]));
    expect(Object.keys(doc.paths["/api/api-keys/{id}"] ?? {})).toEqual(expect.arrayContaining(["get", "delete"]));
    const page = await call("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("/api/openapi.json");
  });
});
