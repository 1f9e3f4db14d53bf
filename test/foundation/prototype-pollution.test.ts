// #20, item 1: no request can write to a shared prototype (JSON Patch, a transaction's PATCH
// entry, FHIRPath Patch, set_fields), keys named like prototype members never reach a 5xx, and
// deployment settings cannot be supplied through Object.prototype.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { settingsOf } from "../../src/platform/settings";
import { post } from "../fhir/support";
import { definition, edge, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const pristine = () => Reflect.ownKeys(Object.prototype).length;
const KEYS_BEFORE = pristine();

afterEach(() => {
  // Leave nothing behind even when an assertion fails (the sentinel reports it too).
  for (const k of ["polluted", "LLM_BASE_URL", "LLM_MODELS", "DEV_MODE"]) delete (Object.prototype as Record<string, unknown>)[k];
});

const jsonPatch = (t: Tenant, id: string, ops: unknown) =>
  t.fetch(`/fhir/r4/${t.orgId}/Patient/${id}`, { method: "PATCH", body: JSON.stringify(ops), headers: { "content-type": "application/json-patch+json" } });

const POINTERS = ["/__proto__/polluted", "/constructor/prototype/polluted", "/name/0/__proto__/polluted", "/name/__proto__", "/meta/constructor/prototype/polluted"];

describe("prototype pollution", () => {
  it("JSON Patch refuses pointers through __proto__, constructor and prototype (every op)", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Doe" }], meta: { tag: [{ code: "x" }] } } as never);
    for (const path of POINTERS) {
      for (const op of [{ op: "add", path, value: "x" }, { op: "replace", path, value: "x" }, { op: "copy", from: "/name/0", path }, { op: "move", from: path, path: "/gender" }, { op: "test", path, value: {} }]) {
        const res = await jsonPatch(t, p.id, [op]);
        expect(res.status, `${JSON.stringify(op)}`).toBe(422);
        expect(((await res.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(pristine()).toBe(KEYS_BEFORE);
    const read = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`);
    expect(((await read.json()) as { meta: { versionId: string } }).meta.versionId).toBe(p.meta!.versionId);
  });

  it("a transaction's PATCH entry cannot pollute either", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Doe" }] } as never);
    const binary = (ops: unknown) => ({ resourceType: "Binary", contentType: "application/json-patch+json", data: btoa(JSON.stringify(ops)) });
    for (const type of ["transaction", "batch"]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, {
        method: "POST",
        json: { resourceType: "Bundle", type, entry: [{ resource: binary([{ op: "add", path: "/__proto__/polluted", value: "x" }]), request: { method: "PATCH", url: `Patient/${p.id}` } }] },
      });
      expect(res.status).toBeLessThan(500);
      const body = (await res.json()) as { resourceType: string; entry?: { response: { status: string } }[] };
      if (type === "transaction") expect(body.resourceType).toBe("OperationOutcome");
      else expect(body.entry![0]!.response.status).toMatch(/^422/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("FHIRPath Patch refuses prototype names in path and name", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Doe" }] } as never);
    const op = (path: string, name?: string) => ({
      resourceType: "Parameters",
      parameter: [{ name: "operation", part: [{ name: "type", valueCode: "add" }, { name: "path", valueString: path }, ...(name ? [{ name: "name", valueString: name }] : []), { name: "value", valueString: "x" }] }],
    });
    for (const body of [op("Patient", "__proto__"), op("Patient.constructor.prototype", "polluted"), op("Patient.name.__proto__", "polluted")]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`, { method: "PATCH", body: JSON.stringify(body), headers: { "content-type": "application/fhir+json" } });
      expect(res.status).toBe(422);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("set_fields refuses prototype segments when the pipeline is saved", async () => {
    const t = await createTenant();
    for (const field of ["__proto__.polluted", "constructor.prototype.polluted", "a.__proto__", "prototype"]) {
      const def = definition([trigger(), { id: "set", type: "data.set_fields", config: { fields: { [field]: "'x'" } } }], [{ from: { node: "start", port: "event" }, to: { node: "set", port: "input" } }]);
      const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: def } });
      expect(res.status, field).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("pipeline node ids and port names cannot be prototype names", async () => {
    const t = await createTenant();
    const bad = [
      definition([{ id: "__proto__", type: "control.manual_trigger" }], []),
      definition([{ id: "constructor", type: "control.manual_trigger" }], []),
      definition([trigger(), { id: "s", type: "control.switch", config: { cases: [{ port: "constructor", expression: "true" }] } }], []),
      definition([trigger(), { id: "t", type: "data.transform", config: { expression: "a" }, pinned_input: JSON.parse('{"__proto__": {"a": 1}}') }], [edge("start", "t", "event")]),
    ];
    for (const def of bad) {
      const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: def } });
      expect(res.status, JSON.stringify(def)).toBe(400);
    }
  });

  it("custom tools cannot be named after prototype members", async () => {
    const t = await createTenant();
    for (const name of ["__proto__", "constructor", "prototype"]) {
      const res = await t.fetch("/api/tools", {
        method: "POST",
        json: { name, description: "d", parameters: { type: "object" }, implementation: { kind: "pipeline", pipeline_id: crypto.randomUUID() } },
      });
      expect(res.status, name).toBe(400);
    }
  });

  it("deployment settings never come from Object.prototype", async () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.LLM_BASE_URL = "http://attacker.example/v1";
    proto.LLM_MODELS = "stolen";
    proto.DEV_MODE = "true";
    try {
      const settings = settingsOf({ ...env });
      expect(settings.LLM_BASE_URL).toBeUndefined();
      expect(settings.LLM_MODELS).toBeUndefined();
      expect(settingsOf({}).DEV_MODE).toBeUndefined();
      const other = await createTenant();
      const res = await other.fetch("/api/llm-models");
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain("stolen");
    } finally {
      delete proto.LLM_BASE_URL;
      delete proto.LLM_MODELS;
      delete proto.DEV_MODE;
    }
  });

  it("after every polluting attempt, other organizations' requests still work", async () => {
    const attacker = await createTenant();
    const p = await post(attacker, { resourceType: "Patient" } as never);
    for (const path of POINTERS) await jsonPatch(attacker, p.id, [{ op: "add", path, value: { toJSON: 1 } }]);
    const victim = await createTenant();
    expect((await victim.fetch("/api/organization")).status).toBe(200);
    expect((await victim.fetch("/api/api-keys", { method: "POST", json: { name: "k", role: "service" } })).status).toBe(201);
    expect((await victim.fetch(`/fhir/r4/${victim.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
    expect((await victim.fetch(`/fhir/r4/${victim.orgId}/Patient`)).status).toBe(200);
  });
});

describe("keys named like prototype members", () => {
  const NAMES = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"];

  it("never answer 5xx in a type, a search parameter, an operation parameter or a body key", async () => {
    const t = await createTenant();
    const failures: string[] = [];
    const fhir = `/fhir/r4/${t.orgId}`;
    for (const k of NAMES) {
      const e = encodeURIComponent(k);
      const probes: [string, RequestInit & { json?: unknown }][] = [
        [`${fhir}/${e}`, {}],
        [`${fhir}/${e}/1`, {}],
        [`${fhir}/${e}/_history`, {}],
        [`${fhir}/Patient?${e}=1`, {}],
        [`${fhir}/Patient?name:${e}=1`, {}],
        [`${fhir}/Patient?_sort=${e}`, {}],
        [`${fhir}/Patient?_include=Patient:${e}`, {}],
        [`${fhir}/Patient?_summary=${e}`, {}],
        [`${fhir}/Patient?_elements=${e}`, {}],
        [`${fhir}/Patient?${e}.name=1`, {}],
        [`${fhir}/Patient?_has:${e}:subject:code=1`, {}],
        [`${fhir}?_type=${e}`, {}],
        [`${fhir}/$export?${e}=1`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } }],
        [`${fhir}/$export?_type=${e}`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } }],
        [`${fhir}/Patient`, { method: "POST", json: { resourceType: "Patient", [k]: { x: 1 } } }],
        [`${fhir}/Patient`, { method: "POST", json: { resourceType: k } }],
        [`${fhir}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ [k]: "x" }] } }],
        [`${fhir}/Patient/$validate`, { method: "POST", json: { resourceType: "Patient", [k]: 1 } }],
        [`${fhir}`, { method: "POST", json: { resourceType: "Bundle", type: "batch", entry: [{ resource: { resourceType: k }, request: { method: "POST", url: k } }] } }],
        [`/api/pipelines`, { method: "POST", json: { name: "p", definition: { nodes: [], connections: [], [k]: 1 } } }],
        [`/api/api-keys`, { method: "POST", json: { name: "x", role: k } }],
        [`/api/agents`, { method: "POST", json: { name: "a", agent_type: k, [k]: 1 } }],
        [`/api/connectors`, { method: "POST", json: { name: "c", type: k, endpoint: "https://example.org" } }],
        [`/api/pipelines?${e}=1`, {}],
        [`/api/executions?status=${e}`, {}],
      ];
      for (const [path, init] of probes) {
        const res = await t.fetch(path, init);
        if (res.status >= 500) failures.push(`${init.method ?? "GET"} ${path} ${JSON.stringify(init.json ?? "")} → ${res.status} ${(await res.text()).slice(0, 160)}`);
        else await res.body?.cancel();
      }
    }
    expect(failures).toEqual([]);
    expect(pristine()).toBe(KEYS_BEFORE);
  });
});
