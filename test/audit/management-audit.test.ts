// The audit trail of management actions: one AuditEvent per action with its agent (key id and
// role), action codes, entity and outcome; no secret in any of them; AuditEvents append-only for
// every role; GET /api/audit filters and pages; tenancy.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { describe, expect, inject, it } from "vitest";
import { purgeExpiredAudits } from "../../src/features/audit/use-cases/purge";
import { orgContexts } from "../../src/main/context";
import { OrganizationStore } from "../../src/features/tenancy/organizations";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { auditsDelivered } from "../support/queues";
import { authedFetch, call, createKey, createTenant, type Tenant } from "../support/tenants";

interface AuditEventBody {
  id: string;
  type: { code: string; system: string };
  subtype: { system: string; code: string }[];
  action: string;
  outcome: string;
  outcomeDesc?: string;
  recorded: string;
  agent: { who: { identifier: { value: string } }; altId: string; role: { coding: { code: string }[] }[] }[];
  entity: { type: { code: string }; what?: { identifier: { value: string } } }[];
  source: { site: string };
}

/** The trail as GET /api/audit lists it, once the audit queue has delivered every AuditEvent recorded so far (docs/audit.md). */
async function audits(t: Tenant, query = ""): Promise<AuditEventBody[]> {
  await auditsDelivered();
  const res = await t.fetch(`/api/audit?limit=100${query ? `&${query}` : ""}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { audit_events: AuditEventBody[] }).audit_events;
}

/** The newest AuditEvent of `action`, checked against who did it, the entity and the outcome. */
async function expectAudit(t: Tenant, action: string, want: { entity: string; entityId?: string; outcome?: string; keyId?: string; role?: string; fhirAction?: string }) {
  const match = (e: AuditEventBody) => (want.entityId === undefined || e.entity[0]?.what?.identifier.value === want.entityId) && e.outcome === (want.outcome ?? "0");
  const [event] = (await audits(t, `action=${action}`)).filter(match);
  expect(event, action).toBeDefined();
  const e = event!;
  expect(e.subtype.find((s) => s.system === "urn:cdis:management-action")?.code).toBe(action);
  expect(e.agent[0]?.who.identifier.value).toBe(want.keyId ?? t.keyId);
  expect(e.agent[0]?.altId).toBe(want.keyId ?? t.keyId);
  expect(e.agent[0]?.role[0]?.coding[0]?.code).toBe(want.role ?? "admin");
  expect(e.entity[0]?.type.code).toBe(want.entity);
  if (want.entityId !== undefined) expect(e.entity[0]?.what?.identifier.value, action).toBe(want.entityId);
  expect(e.outcome, `${action}: ${e.outcomeDesc}`).toBe(want.outcome ?? "0");
  if (want.fhirAction) expect(e.action).toBe(want.fhirAction);
  expect(e.source.site).toBe(t.orgId);
  return e;
}

const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

describe("management actions leave AuditEvents", () => {
  it("API keys created and revoked (DICOM security alert), the key itself never recorded", async () => {
    const t = await createTenant();
    const created = await json<{ id: string; key: string }>(t.fetch("/api/api-keys", { method: "POST", json: { name: "ingest", role: "service" } }));
    const e = await expectAudit(t, "api_key.create", { entity: "api_key", entityId: created.id, fhirAction: "C" });
    expect(e.type).toMatchObject({ system: "http://dicom.nema.org/resources/ontology/DCM", code: "110113" });
    expect(e.subtype[0]).toMatchObject({ code: "110137" });
    expect((await t.fetch(`/api/api-keys/${created.id}`, { method: "DELETE" })).status).toBeLessThan(300);
    await expectAudit(t, "api_key.revoke", { entity: "api_key", entityId: created.id, fhirAction: "D" });
    expect(JSON.stringify(await audits(t))).not.toContain(created.key);
  });

  it("consent policy and audit retention changes", async () => {
    const t = await createTenant();
    await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: true } });
    await expectAudit(t, "consent_policy.update", { entity: "consent_policy", entityId: t.orgId, fhirAction: "U" });
    await t.fetch("/api/audit/retention", { method: "PUT", json: { retention_days: 3650 } });
    await expectAudit(t, "audit_retention.update", { entity: "audit_retention", entityId: t.orgId });
  });

  it("pipelines created, updated, deployed, undeployed, deleted; a refused one records the reason", async () => {
    const t = await createTenant();
    const def = definition([trigger()], []);
    const id = await createPipeline(t, def, { deploy: false });
    await expectAudit(t, "pipeline.create", { entity: "pipeline", entityId: id, fhirAction: "C" });
    await t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "renamed", definition: def } });
    await expectAudit(t, "pipeline.update", { entity: "pipeline", entityId: id, fhirAction: "U" });
    await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" });
    await expectAudit(t, "pipeline.deploy", { entity: "pipeline", entityId: id, fhirAction: "E" });
    const refused = await t.fetch(`/api/pipelines/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    const failed = await expectAudit(t, "pipeline.delete", { entity: "pipeline", entityId: id, outcome: "4" });
    expect(failed.outcomeDesc).toContain("PIPELINE_DEPLOYED");
    await t.fetch(`/api/pipelines/${id}/undeploy`, { method: "POST" });
    await expectAudit(t, "pipeline.undeploy", { entity: "pipeline", entityId: id });
    expect((await t.fetch(`/api/pipelines/${id}`, { method: "DELETE" })).status).toBe(204);
    await expectAudit(t, "pipeline.delete", { entity: "pipeline", entityId: id });

    const clinician = await createKey(t.orgId, "clinician");
    const asClinician = authedFetch(t.orgId, clinician.key);
    expect((await asClinician("/api/pipelines", { method: "POST", json: { name: "x", definition: def } })).status).toBe(403);
    await expectAudit(t, "pipeline.create", { entity: "pipeline", outcome: "4", keyId: clinician.keyId, role: "clinician" });
  });

  it("executions started (API and webhook), retried and stepped", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, definition([trigger(), { id: "s", type: "data.set_fields", config: { fields: { a: "1" } } }], [edge("start", "s", "event")]));
    const ran = await json<{ execution_id: string }>(t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { x: 1 } } }));
    await expectAudit(t, "execution.start", { entity: "execution", entityId: ran.execution_id });
    const retried = await json<{ execution_id: string }>(t.fetch("/api/execute/retry", { method: "POST", json: { execution_id: ran.execution_id, node_id: "s" } }));
    await expectAudit(t, "execution.retry", { entity: "execution", entityId: retried.execution_id });
    const session = await json<{ session_id: string }>(t.fetch("/api/execute/step", { method: "POST", json: { pipeline_id: id, inputs: {} } }));
    await expectAudit(t, "execution.step", { entity: "execution", entityId: session.session_id });
    await t.fetch(`/api/execute/step/${session.session_id}`, { method: "POST", json: {} });
    await expectAudit(t, "execution.step", { entity: "execution", entityId: session.session_id });

    const hook = await createPipeline(t, definition([{ id: "w", type: "control.webhook_trigger" }], []));
    const fired = await t.fetch(`/api/pipelines/${hook}/webhook`, { method: "POST", json: { a: 1 } });
    const firedBody = (await fired.json()) as { execution_id?: string };
    await expectAudit(t, "execution.start", { entity: "execution", ...(firedBody.execution_id ? { entityId: firedBody.execution_id } : {}), outcome: fired.status < 400 ? "0" : "4" });
  });

  it("agents: CRUD, deploy, versions, tools, conversations, chat turns and public invoke (no message content)", async () => {
    const t = await createTenant();
    const agent = await json<{ id: string }>(t.fetch("/api/agents", { method: "POST", json: { name: "a", agent_type: "triage", model_config: { model: "default", temperature: 0.1, max_tokens: 200 } } }));
    await expectAudit(t, "agent.create", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}`, { method: "PUT", json: { name: "a2" } });
    await expectAudit(t, "agent.update", { entity: "agent", entityId: agent.id });
    const version = await json<{ version: number }>(t.fetch(`/api/agents/${agent.id}/versions`, { method: "POST", json: {} }));
    await expectAudit(t, "agent.version", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}/versions/${version.version ?? 1}/restore`, { method: "POST", json: {} });
    await expectAudit(t, "agent.restore", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}/tools`, { method: "POST", json: { tool: "fhir_search" } });
    await expectAudit(t, "agent.tool_assign", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}/tools/fhir_search`, { method: "DELETE" });
    await expectAudit(t, "agent.tool_remove", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}/deploy`, { method: "POST" });
    await expectAudit(t, "agent.deploy", { entity: "agent", entityId: agent.id });

    const secretWords = "my-secret-symptom-words";
    const chat = await t.fetch(`/api/agents/${agent.id}/chat`, { method: "POST", json: { message: secretWords } });
    await chat.text();
    await expectAudit(t, "agent.chat", { entity: "agent", entityId: agent.id, outcome: chat.status < 400 ? "0" : chat.status < 500 ? "4" : "8" });
    const conv = await t.fetch(`/api/agents/${agent.id}/conversations`, { method: "POST", json: {} });
    const convId = ((await conv.json()) as { id: string }).id;
    await expectAudit(t, "agent.conversation_start", { entity: "conversation", entityId: convId });
    const msg = await t.fetch(`/api/agents/${agent.id}/conversations/${convId}/messages`, { method: "POST", json: { message: secretWords } });
    await msg.text();
    await expectAudit(t, "agent.chat", { entity: "agent", entityId: agent.id, outcome: msg.status < 400 ? "0" : msg.status < 500 ? "4" : "8" });
    await t.fetch(`/api/agents/${agent.id}/conversations/${convId}`, { method: "DELETE" });
    await expectAudit(t, "agent.conversation_delete", { entity: "conversation", entityId: convId });

    const invoker = await createKey(t.orgId, "service", [`agent/${agent.id}:execute`]);
    const invoked = await authedFetch(t.orgId, invoker.key)(`/api/v1/agents/${agent.id}/invoke`, { method: "POST", json: { input_data: { input: secretWords } } });
    await invoked.text();
    await expectAudit(t, "agent.invoke", { entity: "agent", entityId: agent.id, keyId: invoker.keyId, role: "service", outcome: invoked.status < 400 ? "0" : invoked.status < 500 ? "4" : "8" });

    await t.fetch(`/api/agents/${agent.id}/undeploy`, { method: "POST" });
    await expectAudit(t, "agent.undeploy", { entity: "agent", entityId: agent.id });
    await t.fetch(`/api/agents/${agent.id}`, { method: "DELETE" });
    await expectAudit(t, "agent.delete", { entity: "agent", entityId: agent.id });
    expect(JSON.stringify(await audits(t))).not.toContain(secretWords);
  });

  it("connectors and tools changed, tested and invoked, never with their credentials", async () => {
    const t = await createTenant();
    const credentials = { token: "connector-secret-token-987654" };
    const c = await json<{ id: string }>(t.fetch("/api/connectors", { method: "POST", json: { name: "API", type: "http", endpoint: inject("redirectorUrl"), credentials } }));
    await expectAudit(t, "connector.create", { entity: "connector", entityId: c.id });
    await t.fetch(`/api/connectors/${c.id}`, { method: "PUT", json: { name: "API2", type: "http", endpoint: inject("redirectorUrl"), credentials: { token: "another-secret-token-123456" } } });
    await expectAudit(t, "connector.update", { entity: "connector", entityId: c.id });
    await t.fetch(`/api/connectors/${c.id}/test`, { method: "POST" });
    await expectAudit(t, "connector.test", { entity: "connector", entityId: c.id });

    const params = { type: "object", properties: { patient_id: { type: "string" } }, required: ["patient_id"] };
    const tool = await json<{ id: string }>(t.fetch("/api/tools", { method: "POST", json: { name: "lookup", description: "d", parameters: params, implementation: { kind: "http", connector_id: c.id, method: "GET", path: "patients/{patient_id}" } } }));
    await expectAudit(t, "tool.create", { entity: "tool", entityId: tool.id });
    await t.fetch(`/api/tools/${tool.id}`, { method: "PUT", json: { name: "lookup", description: "changed", parameters: params, implementation: { kind: "http", connector_id: c.id, method: "GET", path: "patients/{patient_id}" } } });
    await expectAudit(t, "tool.update", { entity: "tool", entityId: tool.id });
    const invoked = await t.fetch(`/api/tools/${tool.id}/invoke`, { method: "POST", json: { arguments: { patient_id: "p1" } } });
    await expectAudit(t, "tool.invoke", { entity: "tool", entityId: tool.id, outcome: invoked.status < 400 ? "0" : "4" });
    await t.fetch(`/api/tools/${tool.id}`, { method: "DELETE" });
    await expectAudit(t, "tool.delete", { entity: "tool", entityId: tool.id });
    await t.fetch(`/api/connectors/${c.id}`, { method: "DELETE" });
    await expectAudit(t, "connector.delete", { entity: "connector", entityId: c.id });
    const all = JSON.stringify(await audits(t));
    expect(all).not.toContain("connector-secret-token");
    expect(all).not.toContain("another-secret-token");
  });

  it("HL7 message reprocessed (here refused: unknown message)", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/hl7/messages/no-such-message/reprocess", { method: "POST" });
    expect(res.status).toBe(404);
    await expectAudit(t, "hl7_message.reprocess", { entity: "hl7_message", entityId: "no-such-message", outcome: "4" });
  });

  it("exports kicked off, downloaded and cancelled", async () => {
    const t = await createTenant();
    await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } });
    const kick = await t.fetch(`/fhir/r4/${t.orgId}/$export?_type=Patient`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    expect(kick.status).toBe(202);
    const jobId = kick.headers.get("content-location")!.split("/").pop()!;
    await expectAudit(t, "export.start", { entity: "export", entityId: jobId });
    const missing = await t.fetch(`/fhir/r4/${t.orgId}/bulkdata/download/${jobId}/nope.ndjson`);
    await missing.text();
    await expectAudit(t, "export.download", { entity: "export", entityId: jobId, outcome: missing.status < 400 ? "0" : "4" });
    const cancelled = await t.fetch(`/fhir/r4/${t.orgId}/bulkdata/status/${jobId}`, { method: "DELETE" });
    await cancelled.text();
    await expectAudit(t, "export.cancel", { entity: "export", entityId: jobId, outcome: cancelled.status < 400 ? "0" : "4" });
  });
});

describe("the audit trail itself", () => {
  it("AuditEvents are append-only for every role, also inside a transaction", async () => {
    const t = await createTenant();
    await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: false } });
    const [event] = await audits(t, "action=consent_policy.update");
    expect(event).toBeDefined();
    for (const role of ["admin", "clinician", "service"] as const) {
      const f = authedFetch(t.orgId, (await createKey(t.orgId, role)).key);
      const base = `/fhir/r4/${t.orgId}/AuditEvent`;
      const attempts = [
        f(base, { method: "POST", json: { ...event, id: undefined } }),
        f(`${base}/${event!.id}`, { method: "PUT", json: { ...event, outcome: "0" } }),
        f(`${base}/${event!.id}`, { method: "DELETE" }),
        f(`${base}/${event!.id}`, { method: "PATCH", headers: { "content-type": "application/json-patch+json" }, body: JSON.stringify([{ op: "replace", path: "/outcome", value: "0" }]) }),
        f(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ request: { method: "DELETE", url: `AuditEvent/${event!.id}` } }] } }),
      ];
      for (const res of await Promise.all(attempts)) {
        const body = await res.text();
        const refused = res.status >= 400 || body.includes('"status":"403') || body.includes('"status":"405');
        expect(refused, `${role}: ${res.status} ${body.slice(0, 200)}`).toBe(true);
      }
    }
    const again = (await audits(t, "action=consent_policy.update"))[0];
    expect(again).toEqual(event);
  });

  it("filters by actor, entity type, outcome and period, pages, and 400s bad filters", async () => {
    const t = await createTenant();
    const other = await createKey(t.orgId, "admin");
    const asOther = authedFetch(t.orgId, other.key);
    const start = new Date().toISOString();
    await createPipeline(t, definition([trigger()], []), { deploy: false });
    await asOther("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: false } });
    await t.fetch("/api/pipelines/none", { method: "DELETE" });
    expect((await audits(t, `actor=${other.keyId}`)).map((e) => e.subtype[1]?.code)).toEqual(["consent_policy.update"]);
    expect((await audits(t, "entity_type=pipeline")).map((e) => e.subtype[1]?.code)).toEqual(["pipeline.delete", "pipeline.create"]);
    expect((await audits(t, "outcome=failure&entity_type=pipeline")).map((e) => e.outcome)).toEqual(["4"]);
    expect((await audits(t, `since=${start}&entity_type=pipeline`)).length).toBe(2);
    expect((await audits(t, "until=2000-01-01")).length).toBe(0);
    const page = await json<{ audit_events: unknown[]; total_count: number }>(t.fetch("/api/audit?limit=1&offset=1&entity_type=pipeline"));
    expect(page).toMatchObject({ total_count: 2, audit_events: [{ subtype: [{}, { code: "pipeline.create" }] }] });
    expect((await t.fetch("/api/audit?since=yesterday")).status).toBe(400);
    expect((await t.fetch("/api/audit?offset=990&limit=20")).status).toBe(400);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await clinician("/api/audit")).status).toBe(403);
    // The same events on the FHIR endpoint.
    const fhir = await json<{ entry: unknown[] }>(t.fetch(`/fhir/r4/${t.orgId}/AuditEvent?subtype=urn:cdis:management-action|pipeline.create`));
    expect(fhir.entry).toHaveLength(1);
  });

  it("another organization sees none of it and cannot list it", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await createPipeline(a, definition([trigger()], []), { deploy: false });
    // Once A's event is searchable, B still sees none of it.
    expect(await audits(a, "action=pipeline.create")).toHaveLength(1);
    expect(await audits(b, "action=pipeline.create")).toEqual([]);
    const cross = await authedFetch(a.orgId, b.key)("/api/audit");
    expect(cross.status).toBe(403);
    const retention = await authedFetch(a.orgId, b.key)("/api/audit/retention", { method: "PUT", json: { retention_days: 1 } });
    expect(retention.status).toBe(403);
  });
});

describe("compliance export", () => {
  it("Bulk Data export with _type=AuditEvent and _since carries the period's management AuditEvents as NDJSON", async () => {
    const t = await createTenant();
    const since = new Date(Date.now() - 1000).toISOString();
    const id = await createPipeline(t, definition([trigger()], []), { deploy: false });
    // The export holds what the audit queue has delivered by its transaction time.
    expect(await audits(t, "action=pipeline.create")).toHaveLength(1);
    const kick = await t.fetch(`/fhir/r4/${t.orgId}/$export?_type=AuditEvent&_since=${encodeURIComponent(since)}`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    expect(kick.status).toBe(202);
    const status = new URL(kick.headers.get("content-location")!).pathname;
    await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, status.split("/").pop()!));
    const manifest = (await (await t.fetch(status)).json()) as { output: { type: string; url: string }[] };
    const file = manifest.output.find((o) => o.type === "AuditEvent");
    expect(file).toBeDefined();
    const lines = (await (await t.fetch(new URL(file!.url).pathname)).text()).trimEnd().split("\n").map((l) => JSON.parse(l) as AuditEventBody);
    const created = lines.find((e) => e.subtype.some((s) => s.code === "pipeline.create"));
    expect(created?.entity[0]?.what?.identifier.value).toBe(id);
  });
});

describe("retention and the operator purge", () => {
  const purge = (orgId: string, token = "test-operator-token") => call(`/admin/organizations/${orgId}/audit/purge`, { method: "POST", headers: { authorization: `Bearer ${token}` } });

  it("keep (the default) refuses; a retention erases only older events; each purge leaves its own AuditEvent; API keys cannot", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await createPipeline(t, definition([trigger()], []), { deploy: false });
    await createPipeline(other, definition([trigger()], []), { deploy: false });
    expect(await (await t.fetch("/api/audit/retention")).json()).toMatchObject({ retention_days: null });

    const keep = await purge(t.orgId);
    expect(keep.status).toBe(409);
    expect(await keep.json()).toMatchObject({ error: { code: "AUDIT_RETENTION_KEEP" } });
    await expectAudit(t, "audit.purge", { entity: "audit_log", entityId: t.orgId, outcome: "4", keyId: "operator" });
    expect((await purge(t.orgId, "wrong")).status).toBe(401);
    expect((await t.fetch(`/admin/organizations/${t.orgId}/audit/purge`, { method: "POST" })).status).toBe(401);

    expect((await t.fetch("/api/audit/retention", { method: "PUT", json: { retention_days: 0 } })).status).toBe(400);
    await t.fetch("/api/audit/retention", { method: "PUT", json: { retention_days: 30 } });
    const nothingYet = await purge(t.orgId);
    expect(await nothingYet.json()).toMatchObject({ retention_days: 30, purged: 0 });
    const management = (events: AuditEventBody[]) => events.filter((e) => e.subtype.some((s) => s.system === "urn:cdis:management-action"));
    const before = management(await audits(t)).length;
    expect(before).toBeGreaterThan(3);

    // 31 days later everything recorded so far is past retention.
    const report = await purgeExpiredAudits(orgContexts(env), t.orgId, Date.now() + 31 * 86_400_000);
    expect(report.purged).toBeGreaterThanOrEqual(before); // reading the trail is audited too
    const left = management(await audits(t));
    expect(left.map((e) => e.subtype[1]?.code)).toEqual(["audit.purge"]);
    expect(left[0]?.outcome).toBe("0");
    // The other organization's trail is untouched.
    expect((await audits(other, "action=pipeline.create")).length).toBe(1);
  });
});

describe("organization limits changed by the operator", () => {
  const setLimits = (orgId: string, limits: unknown, token = "test-operator-token") =>
    call(`/admin/organizations/${orgId}/limits`, { method: "POST", headers: { authorization: `Bearer ${token}` }, json: { limits } });

  it("records the operator, the organization and the before/after overrides; refusals too; only the operator token", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const res = await setLimits(t.orgId, { apiPerMinute: 1234, concurrentExecutions: 7 });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ org_id: t.orgId, before: {}, after: { apiPerMinute: 1234, concurrentExecutions: 7 }, effective: { apiPerMinute: 1234, concurrentExecutions: 7 } });
    const changed = await expectAudit(t, "organization.limits_change", { entity: "organization", entityId: t.orgId, keyId: "operator", fhirAction: "U" });
    const detail = (e: AuditEventBody) => Object.fromEntries(((e.entity[0] as { detail?: { type: string; valueString: string }[] }).detail ?? []).map((d) => [d.type, JSON.parse(d.valueString)]));
    expect(detail(changed)).toEqual({ before: {}, after: { apiPerMinute: 1234, concurrentExecutions: 7 } });

    // The next change names what it replaced.
    expect((await setLimits(t.orgId, { apiPerMinute: 99 })).status).toBe(200);
    const second = await audits(t, "action=organization.limits_change");
    expect(second.length).toBeGreaterThanOrEqual(2);
    expect(detail(second[0]!)).toEqual({ before: { apiPerMinute: 1234, concurrentExecutions: 7 }, after: { apiPerMinute: 99 } });

    // A refused change: 400 in the documented shape, stored nothing, recorded with its reason.
    const bad = await setLimits(t.orgId, { apiPerMinute: -5, unknownLimit: 1 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "VALIDATION_FAILED" } });
    const refused = await expectAudit(t, "organization.limits_change", { entity: "organization", entityId: t.orgId, keyId: "operator", outcome: "4" });
    expect(refused.outcomeDesc).toMatch(/apiPerMinute/);
    expect((await new OrganizationStore(t.ctx.control).get(t.orgId))?.limits).toEqual({ apiPerMinute: 99 });

    // Only the operator: a wrong token or an org's admin key is refused; an unknown org is 404.
    expect((await setLimits(t.orgId, {}, "wrong")).status).toBe(401);
    expect((await t.fetch(`/admin/organizations/${t.orgId}/limits`, { method: "POST", json: { limits: {} } })).status).toBe(401);
    expect((await setLimits("no-such-org", {})).status).toBe(404);
    // Tenancy: the other organization's trail holds none of it.
    expect(await audits(other, "action=organization.limits_change")).toEqual([]);
  });
});
