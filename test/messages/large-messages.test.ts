// HL7 v2 messages larger than a D1 row (an MDM with an embedded PDF): ingestion, listing,
// routing, the FHIR Binary it creates and reprocessing all work, and no D1 row holds the text.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createPipeline, definition, edge } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

const SENDER = "DOCSYS|GENHOSP";
/** About 7 MiB of base64 "PDF" in one OBX ED field. */
const PDF_BASE64 = `JVBERi0xLjQK${"QUJD".repeat((7 * 1024 * 1024) / 4)}`;
const MDM = [
  "MSH|^~\\&|DOCSYS|GENHOSP|CDIS|CDIS|20260315083000||MDM^T02^MDM_T02|DOC00001|P|2.5.1",
  "EVN|T02|20260315083000",
  "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika||19640812|F",
  "PV1|1|I",
  "TXA|1|DS|TX|20260315083000||||||||DOC-4711^DOCSYS||||||AU",
  `OBX|1|ED|PDF^Report||^application^pdf^Base64^${PDF_BASE64}||||||F`,
].join("\r");

async function route(t: Tenant) {
  await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, SENDER));
}

async function message(t: Tenant, id: string) {
  const res = await t.fetch(`/api/hl7/messages/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { status: string; raw: string; executions: string[]; resources: string[]; error: unknown };
}

describe("HL7 messages larger than a D1 row", () => {
  it("ingests, lists, routes and reprocesses a 7 MiB MDM; its PDF becomes a Binary", async () => {
    const t = await createTenant();
    await createPipeline(
      t,
      definition([{ id: "in", type: "hl7.inbound_trigger", config: { message_type: "MDM" } }, { id: "fhir", type: "hl7.to_fhir", config: {} }], [edge("in", "fhir", "message", "message")]),
    );
    const res = await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "big-1", raw: MDM }] } });
    expect(res.status).toBe(200);
    const [result] = ((await res.json()) as { results: { status: string; message_id: string; ack: string }[] }).results;
    expect(result).toMatchObject({ status: "accepted" });
    expect(result!.ack).toContain("MSA|AA|DOC00001");

    const { results: rows } = await env.DB.prepare("SELECT length(raw) AS n FROM inbound_messages WHERE org_id = ?1").bind(t.orgId).all<{ n: number }>();
    expect(rows[0]!.n).toBeLessThan(256 * 1024);
    // A retry of the same message is a duplicate and leaves no second copy in R2.
    const retry = await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "big-1", raw: MDM }] } });
    expect(((await retry.json()) as { results: { status: string }[] }).results[0]!.status).toBe("duplicate");
    expect((await env.BLOBS.list({ prefix: `orgs/${t.orgId}/hl7/` })).objects).toHaveLength(1);
    const list = (await (await t.fetch("/api/hl7/messages")).json()) as { messages: { id: string }[]; total_count: number };
    expect(list.messages.map((m) => m.id)).toEqual([result!.message_id]);

    await route(t);
    const processed = await message(t, result!.message_id);
    expect(processed).toMatchObject({ status: "processed", error: null });
    expect(processed.raw).toBe(MDM);
    const binaryRef = processed.resources.find((r) => r.startsWith("Binary/"));
    expect(binaryRef).toBeDefined();
    const binary = (await (await t.fetch(`/fhir/r4/${t.orgId}/${binaryRef}`, { headers: { accept: "application/fhir+json" } })).json()) as { data: string; contentType: string };
    expect(binary).toMatchObject({ contentType: "application/pdf" });
    expect(binary.data).toBe(PDF_BASE64);
    const execution = await t.fetch(`/api/executions/${processed.executions[0]}`);
    expect(execution.status).toBe(200);
    expect(((await execution.json()) as { status: string }).status).toBe("completed");

    const again = await t.fetch(`/api/hl7/messages/${result!.message_id}/reprocess`, { method: "POST" });
    expect(again.status).toBe(202);
    await route(t);
    const reprocessed = await message(t, result!.message_id);
    expect(reprocessed.status).toBe("processed");
    expect(reprocessed.executions[0]).not.toBe(processed.executions[0]);
    expect(reprocessed.raw).toBe(MDM);
  }, 60_000);
});
