// The outbound guard through the API. The suite's OUTBOUND_ALLOW is 127.0.0.1 (its fake
// servers); 127.0.0.2 hosts a stand-in for a metadata service that must never be reached,
// and metadata, private and link-local addresses are refused as in any deployment.
// Destinations that the save-time check would refuse are stored straight through the
// stores: a connector or pipeline saved before OUTBOUND_ALLOW was narrowed.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { ConnectorStore } from "../../src/features/connectors/store";
import { database } from "../../src/platform/db/client";
import { DefinitionSchema } from "../../src/features/pipelines/definition";
import { PipelineStore } from "../../src/features/pipelines/pipeline-store";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const forbidden = () => inject("forbiddenUrl");
const redirector = () => inject("redirectorUrl");

/** Requests that reached the forbidden server so far. */
async function forbiddenHits(): Promise<number> {
  return ((await (await fetch(`${forbidden()}/hits`)).json()) as { hits: number }).hits;
}

interface ErrorBody {
  error: { code: string; message: string; status: number; details?: { path: string; message: string }[] };
}

async function storedConnector(t: Tenant, type: string, endpoint: string, auth: Record<string, string> = { kind: "none" }) {
  return (await new ConnectorStore(database(env.DB), env).create(t.orgId, { name: "stored earlier", type, endpoint, auth: auth as never, credentials: {} })).id;
}

const httpNode = (config: Record<string, unknown>) => definition([trigger(), { id: "h", type: "output.http_request", config }], [edge("start", "h", "event")]);

describe("saving a destination the guard refuses", () => {
  it("refuses connectors to metadata, private and link-local addresses in any spelling, with DESTINATION_NOT_ALLOWED", async () => {
    const t = await createTenant();
    const endpoints: [string, string][] = [
      ["http", "http://169.254.169.254/latest/meta-data/"],
      ["http", "http://metadata.google.internal/computeMetadata/v1/"],
      ["fhir", "http://100.100.100.200/"],
      ["http", "http://0x0a000001/"],
      ["http", "http://[::ffff:a9fe:a9fe]/"],
      ["http", "http://[fd00::1]/"],
      ["openai_compatible", "http://127.0.0.2:11434/v1"],
      ["mllp", "mllp://0xa9fea9fe:2575"],
      ["mllp", "mllp://10.1:2575"],
      ["mllp", "mllp://[fe80::1]:2575"],
      ["mllp", "mllp://localhost:2575"],
    ];
    for (const [type, endpoint] of endpoints) {
      const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "x", type, endpoint } });
      expect(res.status, endpoint).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code, endpoint).toBe("DESTINATION_NOT_ALLOWED");
      expect(body.error.details?.[0]?.path).toBe("endpoint");
    }
    const tokenUrl = await t.fetch("/api/connectors", {
      method: "POST",
      json: { name: "x", type: "fhir", endpoint: "https://ehr.test/fhir", auth: { kind: "oauth2_client_credentials", token_url: "http://169.254.169.254/token" }, credentials: { client_id: "a", client_secret: "b" } },
    });
    expect(((await tokenUrl.json()) as ErrorBody).error).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: [{ path: "auth.token_url" }] });
    // The allow-listed loopback address is accepted; an update to a refused one is not.
    const ok = await t.fetch("/api/connectors", { method: "POST", json: { name: "local", type: "http", endpoint: `${redirector()}/` } });
    expect(ok.status).toBe(201);
    const { id } = (await ok.json()) as { id: string };
    const moved = await t.fetch(`/api/connectors/${id}`, { method: "PUT", json: { name: "local", type: "http", endpoint: "http://192.168.0.1/" } });
    expect(((await moved.json()) as ErrorBody).error.code).toBe("DESTINATION_NOT_ALLOWED");
  });

  it("refuses a pipeline whose HTTP node has a refused static URL, also inside a for-each body", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: httpNode({ url: "http://169.254.169.254/latest/meta-data/", method: "GET" }) } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: [{ path: "nodes.h.config.url" }] });
    const nested = definition([trigger(), { id: "loop", type: "control.for_each", config: { body: httpNode({ url: "http://[::ffff:10.0.0.1]/", method: "POST" }) } }], [edge("start", "loop", "event")]);
    const inBody = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: nested } });
    expect(((await inBody.json()) as ErrorBody).error).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: [{ path: "nodes.loop.config.body.nodes.h.config.url" }] });
    const allowed = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: httpNode({ url: `${redirector()}/hook`, method: "GET" }) } });
    expect(allowed.status).toBe(201);
  });

  it("refuses a custom tool whose connector now points at a refused destination", async () => {
    const t = await createTenant();
    const connectorId = await storedConnector(t, "http", "http://169.254.169.254/");
    const res = await t.fetch("/api/tools", {
      method: "POST",
      json: { name: "creds", description: "d", parameters: { type: "object" }, implementation: { kind: "http", connector_id: connectorId, method: "GET", path: "latest" } },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ code: "DESTINATION_NOT_ALLOWED", details: [{ path: "implementation.connector.endpoint" }] });
  });
});

describe("calling a destination the guard refuses", () => {
  it("fails an HTTP node at call time and records no response of the forbidden target", async () => {
    const t = await createTenant();
    const before = await forbiddenHits();
    const connectorId = await storedConnector(t, "http", `${forbidden()}/`);
    const viaConnector = await createPipeline(t, httpNode({ connector_id: connectorId, path: "latest/meta-data", method: "GET" }));
    const row = await new PipelineStore(database(env.DB)).create(t.orgId, { name: "direct", description: "", definition: DefinitionSchema.parse(httpNode({ url: `${forbidden()}/latest/meta-data`, method: "GET" })) });
    expect((await t.fetch(`/api/pipelines/${row.id}/deploy`, { method: "POST" })).status).toBe(200);
    for (const id of [viaConnector, row.id]) {
      for (const test_mode of [false, true]) {
        const { body } = await run(t, id, {}, { test_mode });
        expect(body.status).toBe("failed");
        expect(body.node_results.h?.error?.code).toBe("DESTINATION_NOT_ALLOWED");
        expect(JSON.stringify(body)).not.toContain("SECRET-METADATA");
      }
    }
    expect(await forbiddenHits()).toBe(before);
  });

  it("refuses a redirect from an allowed server to a forbidden one, without contacting it", async () => {
    const t = await createTenant();
    const before = await forbiddenHits();
    const target = `${forbidden()}/latest/meta-data/iam/security-credentials`;
    const p = await createPipeline(t, httpNode({ url: `${redirector()}/hook?to=${encodeURIComponent(target)}`, method: "GET" }));
    const { body } = await run(t, p);
    expect(body.node_results.h?.error?.code).toBe("DESTINATION_NOT_ALLOWED");
    const record = await (await t.fetch(`/api/executions/${body.execution_id}`)).text();
    expect(record).toContain("127.0.0.2");
    expect(record).not.toContain("SECRET-METADATA");
    expect(await forbiddenHits()).toBe(before);
    // The same server's answers (no redirect) come through.
    const plain = await run(t, await createPipeline(t, httpNode({ url: `${redirector()}/hook`, method: "GET" })));
    expect(plain.body.outputs).toBeDefined();
    expect(plain.body.node_results.h?.status).toBe("completed");
  });

  it("refuses a token endpoint discovered through SMART configuration", async () => {
    const t = await createTenant();
    const before = await forbiddenHits();
    const created = await t.fetch("/api/connectors", {
      method: "POST",
      json: { name: "ehr", type: "fhir", endpoint: `${redirector()}/fhir`, credentials: { client_id: "a", client_secret: "b" } },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const result = (await (await t.fetch(`/api/connectors/${id}/test`, { method: "POST" })).json()) as { ok: boolean; message: string };
    expect(result.ok).toBe(false);
    expect(result.message).toContain("Destination not allowed");
    expect(await forbiddenHits()).toBe(before);
  });

  it("does not discover models at a refused endpoint", async () => {
    const t = await createTenant();
    const before = await forbiddenHits();
    await storedConnector(t, "openai_compatible", `${forbidden()}/v1`);
    const res = await t.fetch("/api/llm-models");
    expect(res.status).toBe(200);
    expect(await forbiddenHits()).toBe(before);
  });

  it("refuses MLLP to a forbidden host, in the connection test and in hl7.send", async () => {
    const t = await createTenant();
    // 0x7f000002 is 127.0.0.2 in the legacy spelling a socket API accepts.
    const connectorId = await storedConnector(t, "mllp", `mllp://0x7f000002:${inject("mllpPort")}`);
    const tested = (await (await t.fetch(`/api/connectors/${connectorId}/test`, { method: "POST" })).json()) as { ok: boolean; message: string };
    expect(tested).toMatchObject({ ok: false });
    expect(tested.message).toContain("Destination not allowed");
    const p = await createPipeline(t, definition([trigger(), { id: "send", type: "hl7.send", config: { connector_id: connectorId, timeout_ms: 2000 } }], [edge("start", "send", "event", "message")]));
    const { body } = await run(t, p, { raw: "MSH|^~\\&|CDIS|CDIS|RIS|HOSP|20260316101500||ADT^A08|G1|P|2.5.1\rPID|1||1" });
    expect(body.node_results.send?.error?.code).toBe("DESTINATION_NOT_ALLOWED");
  });
});
