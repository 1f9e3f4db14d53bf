// GET /api/llm-models, MODEL_UNAVAILABLE and model validation of agents.
import { beforeAll, describe, expect, it } from "vitest";
import { fakeOrg, giveModel, installAgentFakes } from "../support/agent-fakes";
import { createKey, authedFetch, createTenant } from "../support/tenants";

beforeAll(installAgentFakes);

interface Models {
  models: { id: string; capabilities: { tool_calling: boolean; streaming: boolean }; context_window: number; pricing_tier: string }[];
  total_count: number;
}

describe("llm models", () => {
  it("lists the org's models with capabilities, context window and pricing tier", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({ content: "hi" }));
    const body = (await (await t.fetch("/api/llm-models")).json()) as Models;
    expect(body.total_count).toBe(1);
    expect(body.models[0]).toEqual({
      id: "local/fake-llama",
      name: "fake-llama",
      provider: "openai-compatible",
      endpoint_id: "local",
      capabilities: { tool_calling: true, streaming: true },
      context_window: 8192,
      pricing_tier: "self-hosted",
    });
  });

  it("lists nothing for an org without models, and chat answers 503 MODEL_UNAVAILABLE", async () => {
    const t = await createTenant();
    expect(((await (await t.fetch("/api/llm-models")).json()) as Models).models).toEqual([]);
    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom" } })).json()) as { id: string };
    const res = await t.fetch(`/api/agents/${agent.id}/chat`, { method: "POST", json: { message: "hello" } });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("MODEL_UNAVAILABLE");
    expect(body.error.message).toMatch(/No language model is configured/);
    const streamed = await t.fetch(`/api/agents/${agent.id}/chat`, { method: "POST", json: { message: "hello", stream: true } });
    expect(streamed.status).toBe(503);
  });

  it("answers 503 when the endpoint cannot be reached, never a made-up reply", async () => {
    const t = await createTenant();
    fakeOrg(t.orgId).endpoints = [
      {
        id: "down",
        baseURL: "http://llm.test/v1",
        models: [{ name: "m" }],
        fetch: async () => {
          throw new TypeError("fetch failed: connection refused");
        },
      },
    ];
    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom" } })).json()) as { id: string };
    const res = await t.fetch(`/api/agents/${agent.id}/chat`, { method: "POST", json: { message: "hello" } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("MODEL_UNAVAILABLE");
  });

  it("validates model_config.model against the list", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({ content: "hi" }));
    const bad = await t.fetch("/api/agents", {
      method: "POST",
      json: { name: "a", agent_type: "custom", model_config: { model: "gpt-imaginary", temperature: 0, max_tokens: 100 } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe("model_config.model");
    const tooLong = await t.fetch("/api/agents", {
      method: "POST",
      json: { name: "a", agent_type: "custom", model_config: { model: "local/fake-llama", temperature: 0, max_tokens: 9000 } },
    });
    expect(tooLong.status).toBe(400);
    for (const model of ["local/fake-llama", "fake-llama", "default"]) {
      const ok = await t.fetch("/api/agents", {
        method: "POST",
        json: { name: "a", agent_type: "custom", model_config: { model, temperature: 0.5, max_tokens: 100 } },
      });
      expect(ok.status).toBe(201);
    }
  });

  it("needs agents:read", async () => {
    const t = await createTenant();
    const scoped = authedFetch(t.orgId, (await createKey(t.orgId, "service", ["agent/x:execute"])).key);
    expect((await scoped("/api/llm-models")).status).toBe(403);
  });
});
