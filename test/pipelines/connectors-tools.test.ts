// Connectors (credentials sealed at rest, masked in responses, connection test
// with OAuth2 client credentials) and custom tools (CRUD, invocation), per tenant.
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encryptCredentials } from "../../src/features/connectors/crypto";
import { connectors } from "../../src/features/connectors/tables";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

afterEach(() => {
  vi.restoreAllMocks();
});

const fhirConnector = { name: "Epic", type: "fhir", endpoint: "https://ehr.test/fhir", auth: { kind: "oauth2_client_credentials", token_url: "https://ehr.test/token", scope: "system/*.read" }, credentials: { client_id: "client-abc", client_secret: "very-secret-value-9876" } };

async function createConnector(t: Tenant, body: unknown = fhirConnector) {
  const res = await t.fetch("/api/connectors", { method: "POST", json: body });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; credentials: Record<string, string>; auth: Record<string, string> };
}

describe("connectors", () => {
  it("lists the types", async () => {
    const t = await createTenant();
    const body = (await (await t.fetch("/api/connectors/types")).json()) as { types: { type: string; auth_kinds: string[] }[] };
    expect(body.types.map((x) => x.type)).toEqual(["fhir", "http", "openai_compatible", "mllp", "dicomweb"]);
    expect(body.types[0]?.auth_kinds).toContain("oauth2_client_credentials");
  });

  it("never returns secrets and stores them encrypted, bound to their row", async () => {
    const t = await createTenant();
    const c = await createConnector(t);
    expect(c.credentials).toEqual({ client_id: "****", client_secret: "****9876" });
    const listed = await (await t.fetch("/api/connectors")).text();
    expect(listed).not.toContain("very-secret-value-9876");
    expect(await (await t.fetch(`/api/connectors/${c.id}`)).text()).not.toContain("very-secret");
    const row = await t.ctx.db.select().from(connectors).where(and(eq(connectors.orgId, t.orgId), eq(connectors.id, c.id))).get();
    expect(row?.credentialsEnc).toBeTruthy();
    expect(row?.credentialsEnc).not.toContain("very-secret");
    expect(atob(row?.credentialsEnc as string)).not.toContain("very-secret");
  });

  it("infers the auth kind from the spec's create body and validates credentials", async () => {
    const t = await createTenant();
    const inferred = await createConnector(t, { name: "E", type: "fhir", endpoint: "https://ehr.test/fhir", credentials: { client_id: "a", client_secret: "b" } });
    expect(inferred.auth.kind).toBe("oauth2_client_credentials");
    const bad = await t.fetch("/api/connectors", { method: "POST", json: { name: "E", type: "fhir", endpoint: "https://ehr.test", auth: { kind: "bearer" }, credentials: {} } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe("credentials.token");
    const unknown = await t.fetch("/api/connectors", { method: "POST", json: { name: "E", type: "sftp", endpoint: "https://x.test" } });
    expect(unknown.status).toBe(400);
    // Each type takes its own URL schemes.
    const wrongScheme = await t.fetch("/api/connectors", { method: "POST", json: { name: "E", type: "mllp", endpoint: "https://x.test" } });
    expect(((await wrongScheme.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe("endpoint");
    expect((await t.fetch("/api/connectors", { method: "POST", json: { name: "E", type: "fhir", endpoint: "mllp://x.test:2575" } })).status).toBe(400);
    expect((await t.fetch("/api/connectors", { method: "POST", json: { name: "RIS", type: "mllp", endpoint: "mllp://ris.test:2575" } })).status).toBe(201);
  });

  it("updates without resending credentials, deletes, and tests the connection with a fetched OAuth2 token", async () => {
    const t = await createTenant();
    const c = await createConnector(t);
    const updated = await t.fetch(`/api/connectors/${c.id}`, { method: "PUT", json: { ...fhirConnector, credentials: undefined, name: "Epic prod" } });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as { credentials: Record<string, string> }).credentials.client_secret).toBe("****9876");
    // Switching the auth kind without the credentials it needs is refused.
    const switched = await t.fetch(`/api/connectors/${c.id}`, { method: "PUT", json: { ...fhirConnector, credentials: undefined, auth: { kind: "bearer" } } });
    expect(switched.status).toBe(400);

    const calls: { url: string; auth: string | null; body?: string }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = String(input);
      calls.push({ url, auth: new Headers(init?.headers).get("authorization"), body: init?.body ? String(init.body) : undefined });
      if (url === "https://ehr.test/token") return Response.json({ access_token: "tok-1", expires_in: 3600 });
      if (url === "https://ehr.test/fhir/metadata") return Response.json({ resourceType: "CapabilityStatement" });
      return new Response(null, { status: 404 });
    });
    const result = (await (await t.fetch(`/api/connectors/${c.id}/test`, { method: "POST" })).json()) as { ok: boolean; status: number };
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(calls[0]).toMatchObject({ url: "https://ehr.test/token", auth: `Basic ${btoa("client-abc:very-secret-value-9876")}` });
    expect(calls[0]?.body).toContain("grant_type=client_credentials");
    expect(calls[1]).toMatchObject({ url: "https://ehr.test/fhir/metadata", auth: "Bearer tok-1" });

    expect((await t.fetch(`/api/connectors/${c.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/connectors/${c.id}`)).status).toBe(404);
  });

  it("refuses to seal credentials without CONNECTOR_ENCRYPTION_KEY outside dev mode", async () => {
    const prod = { ...env, DEV_MODE: undefined, CONNECTOR_ENCRYPTION_KEY: undefined };
    await expect(encryptCredentials(prod, "aad", { token: "x" })).rejects.toMatchObject({ status: 503, code: "CONNECTOR_KEY_MISSING" });
    const keyed = { ...prod, CONNECTOR_ENCRYPTION_KEY: "a-real-secret" };
    expect(await encryptCredentials(keyed, "aad", { token: "x" })).toMatch(/^[A-Za-z0-9+/=]+$/);
  });

  it("isolates tenants", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const c = await createConnector(a);
    expect((await b.fetch(`/api/connectors/${c.id}`)).status).toBe(404);
    expect((await b.fetch(`/api/connectors/${c.id}`, { method: "PUT", json: fhirConnector })).status).toBe(404);
    expect((await b.fetch(`/api/connectors/${c.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await b.fetch(`/api/connectors/${c.id}/test`, { method: "POST" })).status).toBe(404);
    expect(((await (await b.fetch("/api/connectors")).json()) as { total_count: number }).total_count).toBe(0);
    // A pipeline of org B cannot call through org A's connector.
    const pipeline = await createPipeline(b, definition([trigger(), { id: "h", type: "output.http_request", config: { connector_id: c.id, method: "GET" } }], [edge("start", "h", "event")]));
    const ran = (await (await b.fetch("/api/execute", { method: "POST", json: { pipeline_id: pipeline } })).json()) as { error: { code: string } };
    expect(ran.error.code).toBe("CONNECTOR_NOT_FOUND");
  });
});

describe("tools", () => {
  const params = { type: "object", properties: { patient_id: { type: "string" } }, required: ["patient_id"] };

  it("CRUD with validation of schema, implementation and unique names", async () => {
    const t = await createTenant();
    const c = await createConnector(t, { name: "API", type: "http", endpoint: "https://api.test/v1", credentials: { token: "tkn-12345678" } });
    const body = { name: "lookup_patient", description: "Look a patient up", parameters: params, implementation: { kind: "http", connector_id: c.id, method: "GET", path: "patients/{patient_id}" } };
    const created = await t.fetch("/api/tools", { method: "POST", json: body });
    expect(created.status).toBe(201);
    const tool = (await created.json()) as { id: string; parameters: unknown };
    expect(tool.parameters).toEqual(params);
    expect((await t.fetch("/api/tools", { method: "POST", json: body })).status).toBe(409);
    const noConnector = await t.fetch("/api/tools", { method: "POST", json: { ...body, name: "x", implementation: { kind: "http", connector_id: "nope" } } });
    expect(noConnector.status).toBe(400);
    expect((await t.fetch("/api/tools", { method: "POST", json: { ...body, name: "y", parameters: { type: "string" } } })).status).toBe(400);

    const put = await t.fetch(`/api/tools/${tool.id}`, { method: "PUT", json: { ...body, description: "Changed" } });
    expect(((await put.json()) as { description: string }).description).toBe("Changed");
    const listed = (await (await t.fetch("/api/tools")).json()) as { tools: unknown[]; total_count: number };
    expect(listed.total_count).toBe(1);
    expect((await t.fetch(`/api/tools/${tool.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/tools/${tool.id}`)).status).toBe(404);
  });

  it("invokes an HTTP tool through its connector and a pipeline tool as a sync execution; checks arguments", async () => {
    const t = await createTenant();
    const c = await createConnector(t, { name: "API", type: "http", endpoint: "https://api.test/v1", credentials: { token: "tkn-12345678" } });
    const http = (await (await t.fetch("/api/tools", { method: "POST", json: { name: "lookup", description: "d", parameters: params, implementation: { kind: "http", connector_id: c.id, method: "GET", path: "patients/{patient_id}" } } })).json()) as { id: string };
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json({ name: "Ada" }));
    const res = (await (await t.fetch(`/api/tools/${http.id}/invoke`, { method: "POST", json: { arguments: { patient_id: "p 1" } } })).json()) as { ok: boolean; result: unknown };
    expect(res).toEqual({ ok: true, result: { name: "Ada" }, status: 200 });
    const [url, init] = spy.mock.calls[0] ?? [];
    // The argument its path placeholder took is not sent again as a query parameter.
    expect(String(url)).toBe("https://api.test/v1/patients/p%201");
    expect(new Headers(init?.headers).get("authorization")).toBe("Bearer tkn-12345678");
    const badArgs = await t.fetch(`/api/tools/${http.id}/invoke`, { method: "POST", json: { arguments: { patient_id: 5 } } });
    expect(badArgs.status).toBe(400);

  });

  it("adds a GET tool's arguments to the query string its path already has", async () => {
    const t = await createTenant();
    const c = await createConnector(t, { name: "API", type: "http", endpoint: "https://api.test/v1", credentials: { token: "tkn-12345678" } });
    const implementation = { kind: "http", connector_id: c.id, method: "GET", path: "search?kind=patient&q=a%26b" };
    const tool = (await (await t.fetch("/api/tools", { method: "POST", json: { name: "search", description: "d", parameters: params, implementation } })).json()) as { id: string };
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json({}));
    expect((await t.fetch(`/api/tools/${tool.id}/invoke`, { method: "POST", json: { arguments: { patient_id: "p?1" } } })).status).toBe(200);
    const url = new URL(String(spy.mock.calls[0]?.[0]));
    expect(url.pathname).toBe("/v1/search");
    expect([...url.searchParams]).toEqual([["kind", "patient"], ["q", "a&b"], ["patient_id", "p?1"]]);
  });

  it("sends each argument once, where the definition puts it: path, query placeholder, then query (GET) or body", async () => {
    const t = await createTenant();
    const c = await createConnector(t, { name: "API", type: "http", endpoint: "https://api.test/v1", credentials: { token: "tkn-12345678" } });
    const parameters = { type: "object", properties: { patient_id: { type: "string" }, q: { type: "string" }, note: { type: "string" } } };
    const tool = async (name: string, method: string, path: string) =>
      ((await (await t.fetch("/api/tools", { method: "POST", json: { name, description: "d", parameters, implementation: { kind: "http", connector_id: c.id, method, path } } })).json()) as { id: string }).id;
    const search = await tool("search", "GET", "patients/{patient_id}/notes?q={q}");
    const annotate = await tool("annotate", "POST", "patients/{patient_id}/notes");
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json({}));
    const args = { patient_id: "p1", q: "bp", note: "checked" };
    expect((await t.fetch(`/api/tools/${search}/invoke`, { method: "POST", json: { arguments: args } })).status).toBe(200);
    const get = new URL(String(spy.mock.calls[0]?.[0]));
    expect(get.pathname).toBe("/v1/patients/p1/notes");
    expect([...get.searchParams]).toEqual([["q", "bp"], ["note", "checked"]]);
    expect((await t.fetch(`/api/tools/${annotate}/invoke`, { method: "POST", json: { arguments: args } })).status).toBe(200);
    const [postUrl, postInit] = spy.mock.calls[1] ?? [];
    expect(String(postUrl)).toBe("https://api.test/v1/patients/p1/notes");
    expect(JSON.parse(String(postInit?.body))).toEqual({ q: "bp", note: "checked" });
  });

  it("runs a pipeline tool as a sync execution", async () => {
    const t = await createTenant();
    const pipeline = await createPipeline(t, definition([trigger(), { id: "r", type: "output.respond", config: { expression: "{'greeting': 'hi ' & patient_id}" } }], [edge("start", "r", "event")]));
    const tool = (await (await t.fetch("/api/tools", { method: "POST", json: { name: "greet", description: "d", parameters: params, implementation: { kind: "pipeline", pipeline_id: pipeline } } })).json()) as { id: string };
    const out = (await (await t.fetch(`/api/tools/${tool.id}/invoke`, { method: "POST", json: { arguments: { patient_id: "p1" } } })).json()) as { ok: boolean; result: unknown; execution_id: string };
    expect(out).toMatchObject({ ok: true, result: { greeting: "hi p1" } });
    expect(out.execution_id).toBeTruthy();
  });

  it("isolates tenants", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const pipeline = await createPipeline(a, definition([trigger(), { id: "r", type: "output.respond", config: {} }], [edge("start", "r", "event")]));
    const tool = (await (await a.fetch("/api/tools", { method: "POST", json: { name: "t", description: "d", parameters: params, implementation: { kind: "pipeline", pipeline_id: pipeline } } })).json()) as { id: string };
    expect((await b.fetch(`/api/tools/${tool.id}`)).status).toBe(404);
    expect((await b.fetch(`/api/tools/${tool.id}/invoke`, { method: "POST", json: { arguments: { patient_id: "x" } } })).status).toBe(404);
    expect((await b.fetch(`/api/tools/${tool.id}`, { method: "DELETE" })).status).toBe(404);
    // Org B cannot point a tool at org A's pipeline.
    expect((await b.fetch("/api/tools", { method: "POST", json: { name: "t", description: "d", parameters: params, implementation: { kind: "pipeline", pipeline_id: pipeline } } })).status).toBe(400);
  });
});
