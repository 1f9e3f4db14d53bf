// Chat through HTTP with the fake OpenAI-compatible server: the tool loop over
// the real wire format, JSON and SSE answers, tool scoping, audit, failures.
import { beforeAll, describe, expect, it } from "vitest";
import { fakeOrg, giveModel, installAgentFakes } from "../support/agent-fakes";
import { type ChatRequest, lastOf } from "../support/fake-openai";
import { parseSse } from "../support/sse";
import { type Tenant, createTenant } from "../support/tenants";

beforeAll(installAgentFakes);

const patient = { resourceType: "Patient", id: "p1", name: [{ family: "Doe", given: ["Jane"] }], gender: "female", birthDate: "1970-01-01" };
const hr = {
  resourceType: "Observation",
  id: "o1",
  status: "final",
  code: { coding: [{ system: "http://loinc.org", code: "8867-4", display: "Heart rate" }] },
  subject: { reference: "Patient/p1" },
  effectiveDateTime: "2024-05-01T10:00:00Z",
  valueQuantity: { value: 72, unit: "beats/minute" },
};

/** A model that searches heart rates once, then answers from the tool result it was given. */
function heartRateBrain(req: ChatRequest) {
  const toolMsg = req.messages.find((m) => m.role === "tool");
  if (!toolMsg) {
    return {
      content: "Let me check the heart rate.",
      tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Observation", query: "patient=p1&code=http://loinc.org|8867-4" } }],
    };
  }
  const value = /"value":(\d+)/.exec(String(toolMsg.content))?.[1];
  return { content: `The latest heart rate is ${value} bpm.` };
}

async function agentFor(t: Tenant, tools: string[] = ["fhir_search", "fhir_read"]) {
  const res = await t.fetch("/api/agents", {
    method: "POST",
    json: { template_id: "template-clinical_assistant", name: "HR bot", tools },
  });
  return ((await res.json()) as { id: string }).id;
}

describe("agent chat", () => {
  it("runs the tool loop and answers JSON with reasoning steps", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, heartRateBrain);
    fakeOrg(t.orgId).fhir.seed(patient, hr);
    const id = await agentFor(t);
    const res = await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "Heart rate of p1?" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { response: string; reasoning_steps: { type: string; tool?: string; result?: unknown }[]; model: string };
    expect(body.response).toBe("The latest heart rate is 72 bpm.");
    expect(body.model).toBe("local/fake-llama");
    expect(body.reasoning_steps.map((s) => s.type)).toEqual(["thinking", "tool_call", "tool_result"]);
    expect(body.reasoning_steps[1]).toMatchObject({ tool: "fhir_search" });
    expect(body.reasoning_steps[2]).toMatchObject({ tool: "fhir_search", result: { total: 1 } });
    // The model was offered exactly the assigned tools, with the agent's prompts.
    expect(server.requests[0]?.tools?.map((x) => x.function.name)).toEqual(["fhir_search", "fhir_read"]);
    expect(server.requests[0]?.messages[0]).toMatchObject({ role: "system" });
    expect(lastOf(server.requests[0]!, "user")).toBe("Heart rate of p1?");
    // The tool call ran under the caller's org and was audited, naming the agent.
    expect(fakeOrg(t.orgId).audits).toEqual([
      expect.objectContaining({ agentId: id, agentName: "HR bot", keyId: t.keyId, tool: "fhir_search", outcome: "success" }),
    ]);
  });

  it("streams exactly thinking, tool_call, tool_result, message, done as SSE", async () => {
    const t = await createTenant();
    giveModel(t.orgId, heartRateBrain);
    fakeOrg(t.orgId).fhir.seed(patient, hr);
    const id = await agentFor(t);
    const res = await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "Heart rate of p1?", stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("x-ratelimit-limit")).toBeTruthy();
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["thinking", "tool_call", "tool_result", "message", "done"]);
    expect(events[0]?.data).toEqual({ content: "Let me check the heart rate." });
    expect(events[1]?.data).toEqual({
      tool: "fhir_search",
      params: { resource_type: "Observation", query: "patient=p1&code=http://loinc.org|8867-4", count: 10 },
    });
    expect(events[2]?.data).toMatchObject({ tool: "fhir_search", result: { total: 1 }, is_error: false });
    expect(events[3]?.data).toEqual({ content: "The latest heart rate is 72 bpm." });
    expect(events[4]?.data).toEqual({});
  });

  it("streams an error event when the model fails mid-turn", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (_req, i) => (i === 0 ? { tool_calls: [{ name: "fhir_read", arguments: { resource_type: "Patient", id: "p1" } }] } : { status: 400, body: "context length exceeded" }));
    fakeOrg(t.orgId).fhir.seed(patient);
    const id = await agentFor(t);
    const res = await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "?", stream: true } });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["tool_call", "tool_result", "error"]);
    expect(events[2]?.data).toMatchObject({ code: "MODEL_ERROR", status: 502, message: expect.stringContaining("400") });
    // The same failure without streaming is a 502 error body.
    const json = await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "?" } });
    expect(json.status).toBe(502);
  });

  it("lets the model see malformed arguments and failing tools as errors, and recover", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, (req, i) => {
      if (i === 0) return { tool_calls: [{ name: "fhir_read", arguments: '{"resource_type": "Patient", ' }] };
      if (i === 1) return { tool_calls: [{ name: "fhir_read", arguments: { resource_type: "Patient", id: "missing" } }] };
      return { content: `Could not read: ${req.messages.filter((m) => m.role === "tool").length} errors` };
    });
    const id = await agentFor(t);
    const body = (await (await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "?" } })).json()) as {
      response: string;
      reasoning_steps: { type: string; result?: { error?: string } }[];
    };
    expect(body.response).toBe("Could not read: 2 errors");
    const results = body.reasoning_steps.filter((s) => s.type === "tool_result");
    expect(results).toHaveLength(2);
    expect(results[1]?.result?.error).toMatch(/not found/);
    expect(JSON.stringify(server.requests[2]?.messages)).toContain("not found");
    expect(fakeOrg(t.orgId).audits.map((a) => a.outcome)).toEqual(["failure"]);
  });

  it("refuses tools the agent was not given", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (req) =>
      req.messages.some((m) => m.role === "tool")
        ? { content: "done" }
        : { tool_calls: [{ name: "patient_summary", arguments: { patient_id: "p1" } }] },
    );
    fakeOrg(t.orgId).fhir.seed(patient);
    const id = await agentFor(t, ["fhir_search"]);
    const body = (await (await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "?" } })).json()) as {
      reasoning_steps: { type: string; tool?: string; result?: { error?: string } }[];
    };
    const result = body.reasoning_steps.find((s) => s.type === "tool_result");
    expect(result?.tool).toBe("patient_summary");
    expect(result?.result?.error).toBeTruthy();
    expect(fakeOrg(t.orgId).audits).toEqual([]);
  });

  it("withholds a tool result when its audit record cannot be written", async () => {
    const t = await createTenant();
    giveModel(t.orgId, heartRateBrain);
    const org = fakeOrg(t.orgId);
    org.fhir.seed(patient, hr);
    org.auditBroken = true;
    const id = await agentFor(t);
    const body = (await (await t.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "?" } })).json()) as {
      reasoning_steps: { type: string; result?: { error?: string } }[];
    };
    const result = body.reasoning_steps.find((s) => s.type === "tool_result");
    expect(result?.result?.error).toMatch(/audit/);
    expect(JSON.stringify(result)).not.toContain("72");
  });

  it("renders the prompt template and never reaches another org's agent", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const server = giveModel(a.orgId, () => ({ content: "ok" }));
    giveModel(b.orgId, () => ({ content: "ok" }));
    const res = await a.fetch("/api/agents", {
      method: "POST",
      json: { name: "wrap", agent_type: "summarizer", model_config: { model: "default", temperature: 0, max_tokens: 50 }, prompt_template: "Summarize: {{input}} (be brief)" },
    });
    const { id } = (await res.json()) as { id: string };
    await a.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "$& text" } });
    expect(lastOf(server.requests[0]!, "user")).toBe("Summarize: $& text (be brief)");
    expect((await b.fetch(`/api/agents/${id}/chat`, { method: "POST", json: { message: "hi" } })).status).toBe(404);
  });
});
