// Data of every kind for one organization, made through the public APIs, and a snapshot of
// everything those APIs show of it: FHIR resources with history and audit events, pipelines
// and executions, inbound HL7 messages, agents with a conversation, connectors, tools, and a
// Bulk Data export with its files. Shard tests compare snapshots across orgs and across a move.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { giveModel } from "../support/agent-fakes";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import type { Tenant } from "../support/tenants";

const ADT_A01 = [
  "MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|MSG00001|P|2.5.1",
  "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika^^^^^L||19640812|F",
].join("\r");

export interface Seeded {
  patientId: string;
  pipelineId: string;
  executionId: string;
  messageId: string;
  agentId: string;
  conversationId: string;
  exportFile: string;
}

async function ok<T>(res: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function seed(t: Tenant): Promise<Seeded> {
  const fhir = (path: string, init?: Parameters<Tenant["fetch"]>[1]) => t.fetch(`/fhir/r4/${t.orgId}${path}`, init);
  const patient = await ok<{ id: string }>(fhir("/Patient", { method: "POST", json: { resourceType: "Patient", name: [{ family: "Sharded" }] } }), 201);
  await ok(fhir(`/Patient/${patient.id}`, { method: "PUT", json: { resourceType: "Patient", id: patient.id, name: [{ family: "Sharded", given: ["Twice"] }] } }));

  const pipelineId = await createPipeline(t, definition([trigger(), { id: "t", type: "data.transform", config: { expression: "{'n': 1}" } }], [edge("start", "t", "event")]), { name: "p" });
  const { body } = await run(t, pipelineId, { x: 1 });
  await createPipeline(t, definition([{ id: "in", type: "hl7.inbound_trigger", config: { message_type: "ADT" } }, { id: "fhir", type: "hl7.to_fhir", config: {} }], [edge("in", "fhir", "message", "message")]), { name: "adt" });
  const ingested = await ok<{ results: { message_id: string }[] }>(t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "m-1", raw: ADT_A01 }] } }));
  await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, "ADTSYS|GENHOSP"));

  giveModel(t.orgId, () => ({ content: "noted" }));
  const agent = await ok<{ id: string }>(t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom" } }), 201);
  const conv = await ok<{ id: string }>(t.fetch(`/api/agents/${agent.id}/conversations`, { method: "POST", json: {} }), 201);
  await ok(t.fetch(`/api/agents/${agent.id}/conversations/${conv.id}/messages`, { method: "POST", json: { message: "hello" } }));

  await ok(t.fetch("/api/connectors", { method: "POST", json: { name: "ehr", type: "fhir", endpoint: "https://ehr.example.org/fhir", auth: { kind: "none" }, credentials: {} } }), 201);
  await ok(t.fetch("/api/tools", { method: "POST", json: { name: "p-tool", description: "runs p", parameters: { type: "object" }, implementation: { kind: "pipeline", pipeline_id: pipelineId } } }), 201);

  const kick = await fhir("/$export?_type=Patient", { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
  expect(kick.status).toBe(202);
  const status = new URL(kick.headers.get("content-location")!).pathname;
  await runDurableObjectAlarm(orgObject(env.EXPORT_JOB, t.orgId, status.split("/").pop()!));
  const manifest = await ok<{ output: { url: string }[] }>(t.fetch(status));
  return {
    patientId: patient.id,
    pipelineId,
    executionId: body.execution_id,
    messageId: ingested.results[0]!.message_id,
    agentId: agent.id,
    conversationId: conv.id,
    exportFile: new URL(manifest.output[0]!.url).pathname,
  };
}

/** What the APIs show of the org's seeded data (audit events only by id: reading adds more). */
export async function snapshot(t: Tenant, s: Seeded) {
  const fhir = (path: string) => ok<Record<string, unknown>>(t.fetch(`/fhir/r4/${t.orgId}${path}`));
  const ids = (bundle: Record<string, unknown>) => ((bundle.entry ?? []) as { resource: { id: string; meta: { versionId: string } } }[]).map((e) => `${e.resource.id}/${e.resource.meta.versionId}`).sort();
  const api = (path: string) => ok<Record<string, unknown>>(t.fetch(path));
  return {
    patient: await fhir(`/Patient/${s.patientId}`),
    history: ids(await fhir(`/Patient/${s.patientId}/_history`)),
    patients: ids(await fhir("/Patient?_count=100")),
    audits: ids(await fhir("/AuditEvent?_count=1000")),
    pipelines: await api("/api/pipelines"),
    execution: await api(`/api/executions/${s.executionId}`),
    executions: await api("/api/executions"),
    message: await api(`/api/hl7/messages/${s.messageId}`),
    agents: await api("/api/agents"),
    conversation: await api(`/api/agents/${s.agentId}/conversations/${s.conversationId}/messages`),
    connectors: await api("/api/connectors"),
    tools: await api("/api/tools"),
    exportFile: await (await t.fetch(s.exportFile)).text(),
  };
}

/** Rows of `orgId` in each org-owned table of `db` (tables that hold none are left out). */
export async function rowsIn(db: D1Database, orgId: string): Promise<Record<string, number>> {
  const tables = ["fhir_resources", "fhir_history", "fhir_audit_pending", "fhir_idx_token", "pipelines", "pipeline_versions", "executions", "inbound_messages", "agents", "agent_conversations", "connectors", "tools"];
  const out: Record<string, number> = {};
  for (const table of tables) {
    const n = (await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE org_id = ?1`).bind(orgId).first<{ n: number }>())!.n;
    if (n) out[table] = n;
  }
  return out;
}
