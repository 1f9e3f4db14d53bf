// Model-backed generation against the fake OpenAI-compatible server (the real wire format):
// answers are checked by the service's own validators and repaired, bounded; never a canned answer.
import { beforeAll, describe, expect, it } from "vitest";
import { giveModel, installAgentFakes } from "../support/agent-fakes";
import { type ChatRequest, lastOf } from "../support/fake-openai";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

beforeAll(installAgentFakes);

const json = (value: unknown) => ({ content: JSON.stringify(value) });

const valid = {
  name: "ADT to log",
  nodes: [
    { id: "start", type: "control.manual_trigger", config: {} },
    { id: "shape", type: "data.transform", config: { expression: '{"mrn": identifier[0].value}' } },
  ],
  connections: [{ from: { node: "start", port: "event" }, to: { node: "shape", port: "input" } }],
};
const invalid = { ...valid, nodes: [valid.nodes[0], { id: "shape", type: "data.transfrom", config: {} }] };

const post = (t: Tenant, path: string, body: unknown) => t.fetch(`/api/copilot${path}`, { method: "POST", json: body });

describe("generate/pipeline", () => {
  it("repairs an invalid first answer with the validator's errors and returns only a valid definition", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, (_req, i) => (i === 0 ? json(invalid) : { content: `Here it is:\n\`\`\`json\n${JSON.stringify(valid)}\n\`\`\`` }));
    const res = await post(t, "/generate/pipeline", { description: "Take an ADT message and keep the MRN" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { pipeline: { name: string; nodes: { id: string; on_error: string }[] }; attempts: number; repaired: { message: string }[][] };
    expect(body.pipeline.name).toBe("ADT to log");
    expect(body.pipeline.nodes.map((n) => n.id)).toEqual(["start", "shape"]);
    expect(body.pipeline.nodes[1]?.on_error).toBe("stop");
    expect(body.attempts).toBe(2);
    expect(body.repaired[0]?.[0]?.message).toMatch(/Unknown node type data.transfrom/);
    // The catalog is in the prompt, the errors went back to the model.
    expect(server.requests[0]?.messages[0]?.content).toContain("data.transform");
    expect(lastOf(server.requests[1] as ChatRequest, "user")).toMatch(/data.transfrom/);
    // What came back is a definition the service accepts.
    const saved = await t.fetch("/api/pipelines", { method: "POST", json: { name: body.pipeline.name, definition: { nodes: body.pipeline.nodes, connections: valid.connections } } });
    expect(saved.status).toBe(201);
  });

  it("gives up after bounded attempts with a clear error carrying the last validation errors", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, () => json(invalid));
    const res = await post(t, "/generate/pipeline", { description: "anything" });
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: { path: string; message: string }[] } };
    expect(error.code).toBe("GENERATION_INVALID");
    expect(error.details[0]?.message).toMatch(/Unknown node type/);
    expect(server.requests).toHaveLength(3);
  });

  it("answers 503 MODEL_UNAVAILABLE without a model, while deterministic endpoints keep working", async () => {
    const t = await createTenant();
    const res = await post(t, "/generate/pipeline", { description: "x" });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("MODEL_UNAVAILABLE");
    for (const path of ["/generate/agent", "/generate/fhir-queries", "/generate/hl7-mapping", "/generate/code"]) {
      expect((await post(t, path, { description: "x" })).status, path).toBe(503);
    }
    expect((await post(t, "/validate/pipeline", { definition: valid })).status).toBe(200);
  });

  it("maps a model failure to 502", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({ status: 500, body: "boom" }));
    const res = await post(t, "/generate/pipeline", { description: "x" });
    expect(res.status).toBe(502);
  });
});

describe("modify/pipeline and refine/pipeline", () => {
  it("modifies a stored pipeline given as context: the model sees it, the answer is validated", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, definition([trigger(), { id: "shape", type: "data.transform", config: { expression: "$" } }], [edge("start", "shape", "event")]), { deploy: false });
    const modified = { ...valid, nodes: [...valid.nodes, { id: "log", type: "output.log", config: {} }], connections: [...valid.connections, { from: { node: "shape", port: "output" }, to: { node: "log", port: "input" } }] };
    const server = giveModel(t.orgId, () => json(modified));
    const res = await post(t, "/modify/pipeline", { pipeline_id: id, instruction: "log the result" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { pipeline: { nodes: { id: string }[] }; pipeline_id: string; base_version: number };
    expect(body.pipeline.nodes.map((n) => n.id)).toEqual(["start", "shape", "log"]);
    expect(body).toMatchObject({ pipeline_id: id, base_version: 1 });
    expect(lastOf(server.requests[0] as ChatRequest, "user")).toContain('"expression":"$"');
  });

  it("refines against the copilot's findings", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, () => json(valid));
    const def = definition([trigger(), { id: "call", type: "output.http_request", config: { url: "https://ehr.example.net/x", method: "GET" } }], [edge("start", "call", "event")]);
    const res = await post(t, "/refine/pipeline", { definition: def });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(lastOf(server.requests[0] as ChatRequest, "user")).toMatch(/no error route/);
  });

  it("refuses another organization's pipeline (404) before calling the model", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await createPipeline(a, { nodes: valid.nodes, connections: valid.connections }, { deploy: false });
    const server = giveModel(b.orgId, () => json(valid));
    expect((await post(b, "/modify/pipeline", { pipeline_id: id, instruction: "x" })).status).toBe(404);
    expect(server.requests).toHaveLength(0);
  });
});

describe("generate/agent", () => {
  it("repairs an agent with an unknown tool and no {{input}}", async () => {
    const t = await createTenant();
    const agent = { name: "Lab triage", agent_type: "custom", description: "d", system_prompt: "You triage lab results.", model_config: { model: "default", temperature: 0.1, max_tokens: 512 } };
    giveModel(t.orgId, (_r, i) =>
      json(i === 0 ? { ...agent, prompt_template: "Triage", tools: ["lab_magic"] } : { ...agent, prompt_template: "Triage: {{input}}", tools: ["fhir_search"] }),
    );
    const res = await post(t, "/generate/agent", { description: "triage lab results" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { agent: { tools: string[]; prompt_template: string }; attempts: number };
    expect(body.attempts).toBe(2);
    expect(body.agent.tools).toEqual(["fhir_search"]);
    // It is what POST /api/agents accepts.
    expect((await t.fetch("/api/agents", { method: "POST", json: body.agent })).status).toBe(201);
  });
});

describe("generate/fhir-queries", () => {
  it("parses each query with the search parser: errors repaired, unknown parameters dropped with a warning", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (_r, i) =>
      json({ queries: i === 0 ? ["Patiant?name=x"] : ["Observation?code=http://loinc.org|4548-4&patient=Patient/1&colour=blue&_sort=-date"] }),
    );
    const res = await post(t, "/generate/fhir-queries", { description: "HbA1c results of patient 1, newest first" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { queries: string[]; warnings: string[] };
    expect(body.queries).toEqual(["Observation?code=http%3A%2F%2Floinc.org%7C4548-4&patient=Patient%2F1&_sort=-date"]);
    expect(body.warnings.join(" ")).toMatch(/colour/);
  });

  it("sends back values the FHIR API refuses (a date that is none, a quantity that is no number) and answers only queries the API runs", async () => {
    const t = await createTenant();
    const bad = ["Patient?birthdate=notadate", "Observation?value-quantity=abc", "Observation?date=yesterday"];
    const good = ["Patient?birthdate=ge1980-01-01", "Observation?value-quantity=gt5.4|http://unitsofmeasure.org|%25", "Observation?date=ge2024-01-01"];
    const server = giveModel(t.orgId, (_r, i) => json({ queries: i === 0 ? bad : good }));
    const res = await post(t, "/generate/fhir-queries", { description: "Patients born since 1980, HbA1c over 5.4 %, observations of this year" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { queries: string[]; warnings: string[]; attempts: number };
    expect(body.attempts).toBe(2);
    const repair = lastOf(server.requests[1] as ChatRequest, "user");
    expect(repair).toMatch(/queries\.0: Invalid date notadate/);
    expect(repair).toMatch(/queries\.1: Invalid number abc/);
    expect(repair).toMatch(/queries\.2: Invalid date yesterday/);
    expect(body.queries).toEqual(good);
    for (const q of body.queries) expect((await t.fetch(`/fhir/r4/${t.orgId}/${q}`)).status, q).toBe(200);
  });

  it("drops a query still refused after the last attempt, naming why; 422 when none is left", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, () => json({ queries: ["Patient?birthdate=notadate", "Patient?name=smith"] }));
    const res = await post(t, "/generate/fhir-queries", { description: "Smiths born on a bad date" });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { queries: string[]; warnings: string[]; attempts: number };
    expect(body.queries).toEqual(["Patient?name=smith"]);
    expect(body.warnings).toEqual(["Patient?birthdate=notadate: Invalid date notadate (dropped: the FHIR API refuses it)"]);
    expect(server.requests).toHaveLength(3);

    const none = await createTenant();
    giveModel(none.orgId, () => json({ queries: ["Observation?value-quantity=abc"] }));
    const refused = await post(none, "/generate/fhir-queries", { description: "anything" });
    expect(refused.status).toBe(422);
    const { error } = (await refused.json()) as { error: { code: string; details: { path: string; message: string }[] } };
    expect(error.code).toBe("GENERATION_INVALID");
    expect(error.details).toEqual([{ path: "queries.0", message: "Invalid number abc" }]);
  });
});

describe("generate/hl7-mapping", () => {
  const adt = "MSH|^~\\&|ADT|HOSP|CDIS|ORG|202401011200||ADT^A01|MSG1|P|2.5\rPID|1||12345^^^HOSP^MR||Doe^Jane||19800101|F";

  it("checks sources against the HL7 parser's field paths and targets against FHIR types, and reads the sources from the sample", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, (_r, i) =>
      json({
        rules: [
          { source: i === 0 ? "PID5.1" : "PID-5.1", target: "Patient.name[0].family" },
          { source: "PID-7", target: i === 0 ? "Patiant.birthDate" : "Patient.birthDate", transform: "YYYYMMDD to YYYY-MM-DD" },
        ],
      }),
    );
    const res = await post(t, "/generate/hl7-mapping", { description: "ADT patient demographics", sample_message: adt });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { message_type: string; rules: { source: string; sample_value: string }[]; attempts: number };
    expect(body.message_type).toBe("ADT^A01");
    expect(body.attempts).toBe(2);
    const repair = lastOf(server.requests[1] as ChatRequest, "user");
    expect(repair).toMatch(/not an HL7 path: "PID5.1"/);
    expect(repair).toMatch(/Patiant is not a FHIR R4 resource type/);
    expect(body.rules.map((r) => [r.source, r.sample_value])).toEqual([
      ["PID-5.1", "Doe"],
      ["PID-7", "19800101"],
    ]);
  });

  it("refuses a sample that is not HL7 v2 (400)", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => json({ rules: [] }));
    expect((await post(t, "/generate/hl7-mapping", { description: "x", sample_message: "hello" })).status).toBe(400);
  });
});

describe("generate/code", () => {
  it("writes a JSONata transform, compiled by the node's schema and run on the samples (a failing run is repaired)", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (_r, i) => json({ config: { expression: i === 0 ? '$error("nope")' : '{"full": given & " " & family}' }, explanation: "joins names" }));
    const res = await post(t, "/generate/code", { description: "full name", sample_inputs: [{ given: "Ada", family: "Lovelace" }] });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { node: { type: string }; sample_results: { outputs: { output: unknown } }[]; attempts: number };
    expect(body.node.type).toBe("data.transform");
    expect(body.sample_results[0]?.outputs.output).toEqual({ full: "Ada Lovelace" });
    expect(body.attempts).toBe(2);
  });

  it("writes a code.javascript module: a syntax error and a throw on a sample are fed back, the sandbox runs the answer on the samples", async () => {
    const t = await createTenant();
    const answers = [
      "export default function (input) {\n  return input +;\n}",
      "export default function (input) {\n  return { full: input.nope.given };\n}",
      "export default (input) => ({ full: input.given + ' ' + input.family.toUpperCase() });",
    ];
    const server = giveModel(t.orgId, (_r, i) => json({ config: { code: answers[i] }, explanation: "joins names" }));
    const res = await post(t, "/generate/code", { description: "full name", node_type: "code.javascript", sample_inputs: [{ given: "Ada", family: "Lovelace" }] });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { node: { type: string; config: { code: string } }; sample_results: { outputs: { output: unknown } }[]; attempts: number };
    expect(body.node).toEqual({ type: "code.javascript", config: { code: answers[2] } });
    expect(body.sample_results[0]?.outputs.output).toEqual({ full: "Ada LOVELACE" });
    expect(body.attempts).toBe(3);
    expect(lastOf(server.requests[1] as ChatRequest, "user")).toMatch(/config\.code.*line 2, column/s);
    expect(lastOf(server.requests[2] as ChatRequest, "user")).toMatch(/CODE_ERROR: TypeError: .*given.* at line \d+/);
  });
});
