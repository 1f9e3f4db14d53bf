// A client generated from the OpenAPI document (openapi-typescript types + openapi-fetch) drives
// the running service: the document is usable for code generation, not only valid. The committed
// types must equal what the served document generates (`npm run client:generate` refreshes them).
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import { beforeAll, describe, expect, it } from "vitest";
import type { paths } from "../../clients/typescript/api.generated";
import { CLIENT_TYPES, clientTypes } from "../../scripts/lib/openapi-client";
import { type InteropService, interopService } from "./service";

let worker: InteropService;
const client = () => createClient<paths>({ baseUrl: worker.url, headers: worker.headers });

beforeAll(() => {
  worker = interopService(import.meta.filename);
});

describe("generated TypeScript client", () => {
  it("is what the served document generates", async () => {
    const served = (await (await fetch(`${worker.url}/api/openapi.json`)).json()) as object;
    expect(await clientTypes(served)).toBe(readFileSync(CLIENT_TYPES, "utf8"));
  });

  it("creates, lists and reads through typed calls", async () => {
    const definition = { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }], connections: [] };
    const created = await client().POST("/api/pipelines", { body: { name: "generated-client", definition } });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    const listed = await client().GET("/api/pipelines", { params: { query: { limit: 10 } } });
    expect(listed.data!.pipelines.map((p) => p.id)).toContain(id);
    const read = await client().GET("/api/pipelines/{id}", { params: { path: { id } } });
    expect(read.data!.name).toBe("generated-client");
  });

  it("gets the documented error shape, and no other organization's records", async () => {
    const other = createClient<paths>({ baseUrl: worker.url, headers: worker.others[0]!.headers });
    const mine = await client().POST("/api/pipelines", { body: { name: "private", definition: { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }], connections: [] } } });
    const missing = await other.GET("/api/pipelines/{id}", { params: { path: { id: mine.data!.id } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ error: { code: "PIPELINE_NOT_FOUND", status: 404 } });
    const invalid = await client().POST("/api/pipelines", { body: { name: "", definition: { nodes: [], connections: [] } } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toMatchObject({ error: { code: "VALIDATION_FAILED", status: 400 } });
  });
});
