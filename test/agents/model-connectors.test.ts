// Per-organization model endpoints: an OpenAI-compatible connector (key encrypted at
// rest) makes its models available to that organization's agents only. Runs with the
// real services; only the model server is a fake, reached through fetch.
import { eventually } from "../support/eventually";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Brain, fakeOpenAI, lastOf } from "../support/fake-openai";
import { type Tenant, createTenant } from "../support/tenants";

const BASE = "https://llm.example.test/v1";

/** Routes requests for the fake model host to the fake server, recording their Authorization headers. */
function serveModel(answer: string | Brain) {
  const server = fakeOpenAI(typeof answer === "string" ? () => ({ content: answer }) : answer, ["clinic-llama"]);
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

  it("runs the real FHIR search tool against the org's store and audits the call, naming the agent", async () => {
    const t = await createTenant();
    const created = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, {
      method: "POST",
      body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Toolson", given: ["Tia"] }] }),
      headers: { "content-type": "application/fhir+json" },
    });
    const patientId = ((await created.json()) as { id: string }).id;
    serveModel((req) => {
      const toolResult = req.messages.find((m) => m.role === "tool");
      if (!toolResult) return { tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "name=toolson" } }] };
      return { content: toolResult.content?.includes(patientId) ? `Found ${lastOf(req, "user")}` : "not found" };
    });
    const connectorId = await addConnector(t);
    const agent = (await (
      await t.fetch("/api/agents", {
        method: "POST",
        json: { template_id: "template-clinical_assistant", name: "Finder", tools: ["fhir_search"], model_config: { model: `${connectorId}/clinic-llama`, temperature: 0, max_tokens: 256 } },
      })
    ).json()) as { id: string };
    const chat = (await (await t.fetch(`/api/agents/${agent.id}/chat`, { method: "POST", json: { message: "Tia Toolson" } })).json()) as {
      response: string;
      reasoning_steps: { type: string; tool?: string }[];
    };
    expect(chat.response).toBe("Found Tia Toolson");
    expect(chat.reasoning_steps.map((s) => s.type)).toContain("tool_call");
    type Audits = { entry?: { resource: { agent?: { who?: { identifier?: { value?: string } } }[]; subtype?: { code: string }[] } }[] };
    const byAgentOf = (audits: Audits) => (audits.entry ?? []).filter((e) => e.resource.agent?.some((a) => a.who?.identifier?.value === agent.id));
    // The tool call's AuditEvent arrives through the audit queue (docs/audit.md).
    const audits = await eventually(async () => (await (await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?_count=200`)).json()) as Audits, (a) => byAgentOf(a).length > 0);
    const byAgent = byAgentOf(audits);
    expect(byAgent.map((e) => e.resource.subtype?.[0]?.code)).toEqual(["fhir_search"]);
  });
});
