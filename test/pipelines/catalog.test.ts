// The node catalog API: listing by category, search, full detail with JSON
// Schema config and documentation; every documented example config is valid.
import { describe, expect, it } from "vitest";
import { NodeRegistry } from "../../src/features/pipelines/registry";
import { NODE_FAMILIES } from "../../src/main/catalogs";
import { call, createTenant } from "../support/tenants";

/** The catalog the deployment builds (src/main/context.ts), from the same families. */
const registry = new NodeRegistry(NODE_FAMILIES);

interface Entry {
  id: string;
  category: string;
  inputs: { name: string; type: string }[];
  outputs: { name: string; type: string }[];
  config_schema: Record<string, unknown>;
}

describe("node catalog", () => {
  it("lists every node with categories, and filters by category", async () => {
    const t = await createTenant();
    const all = (await (await t.fetch("/api/node-catalog")).json()) as { nodes: Entry[]; categories: string[]; total_count: number };
    expect(all.categories).toEqual(["healthcare", "ai", "data", "output", "control", "claims"]);
    expect(all.total_count).toBe(registry.all().length);
    expect(all.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["control.manual_trigger", "data.transform", "fhir.upsert", "fhir.ehr_fetch", "output.http_request"]));
    const healthcare = (await (await t.fetch("/api/node-catalog?category=healthcare")).json()) as { nodes: Entry[] };
    expect(healthcare.nodes.length).toBeGreaterThan(5);
    expect(healthcare.nodes.every((n) => n.category === "healthcare")).toBe(true);
    const claims = (await (await t.fetch("/api/node-catalog?category=claims")).json()) as { nodes: Entry[] };
    expect(claims.nodes.map((n) => n.id).sort()).toEqual(["x12.build", "x12.from_fhir", "x12.inbound_trigger", "x12.parse", "x12.send", "x12.to_fhir", "x12.validate"]);
    expect((await t.fetch("/api/node-catalog?category=bogus")).status).toBe(400);
  });

  it("searches name, description and keywords", async () => {
    const t = await createTenant();
    const hits = (await (await t.fetch("/api/node-catalog/search/conceptmap")).json()) as { nodes: Entry[] };
    expect(hits.nodes.map((n) => n.id)).toEqual(["data.concept_map"]);
    const byKeyword = (await (await t.fetch(`/api/node-catalog/search/${encodeURIComponent("epic")}`)).json()) as { nodes: Entry[] };
    expect(byKeyword.nodes.map((n) => n.id)).toEqual(["fhir.ehr_fetch", "fhir.ehr_write"]);
    const none = (await (await t.fetch("/api/node-catalog/search/zzzz")).json()) as { total_count: number };
    expect(none.total_count).toBe(0);
  });

  it("details a node: typed ports, JSON Schema config generated from zod, documentation with an example", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/node-catalog/fhir.search");
    expect(res.status).toBe(200);
    const node = (await res.json()) as Entry & { documentation: { summary: string; example: { config: unknown } } };
    expect(node.outputs).toEqual([{ name: "bundle", type: "fhir-bundle" }]);
    expect(node.config_schema).toMatchObject({ type: "object", properties: { resource_type: { type: "string" } }, required: ["resource_type"] });
    expect(node.documentation.example.config).toMatchObject({ resource_type: "Observation" });
    const trig = (await (await t.fetch("/api/node-catalog/control.manual_trigger")).json()) as Entry;
    expect(trig.outputs[0]?.type).toBe("trigger-event");
    const missing = await t.fetch("/api/node-catalog/nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("NODE_TYPE_NOT_FOUND");
  });

  it("every node's documented example config passes its own schema", () => {
    for (const node of registry.all()) {
      const parsed = node.config.safeParse(node.documentation.example.config);
      expect(parsed.success, `${node.id}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
    }
  });

  it("appears in the OpenAPI document", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, unknown> };
    for (const path of ["/api/pipelines", "/api/pipelines/{id}/deploy", "/api/execute", "/api/execute/retry", "/api/execute/step/{sessionId}", "/api/executions/{id}", "/api/stats", "/api/node-catalog/search/{query}", "/api/connectors/types", "/api/tools/{id}"]) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
