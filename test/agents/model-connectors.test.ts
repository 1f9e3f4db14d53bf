// Per-organization model endpoints: an OpenAI-compatible connector (key encrypted at
// rest) makes its models available to that organization's agents only. Runs with the
// real services; only the model server is a fake, reached through fetch.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeOpenAI } from "../support/fake-openai";
import { type Tenant, createTenant } from "../support/tenants";

const BASE = "https://llm.example.test/v1";

/** Routes requests for the fake model host to the fake server, recording their Authorization headers. */
function serveModel(answer: string) {
  const server = fakeOpenAI(() => ({ content: answer }), ["clinic-llama"]);
  const auth: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(BASE)) return real(input, init);
    auth.push(request.headers.get("authorization") ?? "");
    return server.fetch(request);
  });
  return { server, auth };
}

async function addConnector(t: Tenant) {
  const res = await t.fetch("/api/connectors", {
    method: "POST",
    json: { name: "Clinic LLM", type: "openai_compatible", endpoint: BASE, credentials: { token: "sk-clinic-123456" } },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; credentials?: Record<string, string> };
  expect(JSON.stringify(body)).not.toContain("sk-clinic-123456");
  return body.id;
}

afterEach(() => vi.restoreAllMocks());

describe("OpenAI-compatible connectors as model endpoints", () => {
  it("lists the connector's models and answers chat through it with the stored key", async () => {
    const t = await createTenant();
    const { server, auth } = serveModel("Blood pressure is within range.");
    const connectorId = await addConnector(t);
    const models = (await (await t.fetch("/api/llm-models")).json()) as { models: { id: string; capabilities?: unknown }[] };
    const modelId = `${connectorId}/clinic-llama`;
    expect(models.models.map((m) => m.id)).toContain(modelId);

    const created = await t.fetch("/api/agents", {
      method: "POST",
      json: { template_id: "template-summarizer", name: "Summary", model_config: { model: modelId, temperature: 0, max_tokens: 256 } },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const chat = await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "Summarise 120/80 mmHg" } });
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { response: string }).response).toBe("Blood pressure is within range.");
    expect(server.requests.at(-1)?.model).toBe("clinic-llama");
    expect(auth.length).toBeGreaterThan(0);
    expect(auth.every((a) => a === "Bearer sk-clinic-123456")).toBe(true);
  });

  it("offers one organization's connector models to that organization only", async () => {
    const a = await createTenant();
    const b = await createTenant();
    serveModel("x");
    const connectorId = await addConnector(a);
    const seen = (await (await b.fetch("/api/llm-models")).json()) as { models: { id: string }[] };
    expect(seen.models.map((m) => m.id)).not.toContain(`${connectorId}/clinic-llama`);
    const refused = await b.fetch("/api/agents", {
      method: "POST",
      json: { template_id: "template-summarizer", name: "S", model_config: { model: `${connectorId}/clinic-llama`, temperature: 0, max_tokens: 64 } },
    });
    expect(refused.status).toBe(400);
  });

  it("tests the connection against GET /models", async () => {
    const t = await createTenant();
    serveModel("x");
    const id = await addConnector(t);
    const res = await t.fetch(`/api/connectors/${id}/test`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });
});
