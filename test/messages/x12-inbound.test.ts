// Inbound X12 end to end through HTTP: POST /api/v1/inbound/x12/messages stores an
// interchange idempotently on ISA06|GS02 and ISA13, answers with its 999 (TA1 when asked),
// rejects a broken file with the issues in the 999, and routes accepted interchanges to
// deployed pipelines with an X12 trigger matching ST01, like HL7. Another org sees none of it.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createPipeline, definition, edge } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";
import P837 from "../fixtures/x12/837P-subscriber.x12?raw";
import P837_ERRORS from "../fixtures/x12/837P-errors.x12?raw";

const SENDER = "NWBILLING|NWBILLING";

interface Result {
  status: string;
  message_id: string;
  ack?: string;
  error?: { code: string; message: string };
}

async function send(t: Tenant, messages: { id: string; raw: string }[]): Promise<Result[]> {
  const res = await t.fetch("/api/v1/inbound/x12/messages", { method: "POST", json: { messages } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
}

async function claimPipeline(t: Tenant, config: Record<string, string>) {
  return createPipeline(t, definition([{ id: "in", type: "x12.inbound_trigger", config }, { id: "fhir", type: "x12.to_fhir" }], [edge("in", "fhir", "interchange", "interchange")]));
}

const message = async (t: Tenant, id: string) => (await (await t.fetch(`/api/hl7/messages/${id}`)).json()) as { status: string; executions: string[]; resources: string[]; raw: string };

describe("inbound X12", () => {
  it("stores an 837P, answers its 999 and TA1, routes it to the 837 pipeline and stores the Claim; resends are duplicates", async () => {
    const t = await createTenant();
    await claimPipeline(t, { transaction_set: "837", implementation: "005010X222A1" });
    const [r] = await send(t, [{ id: "f-1", raw: P837 }]);
    expect(r).toMatchObject({ status: "accepted" });
    expect(r!.ack).toMatch(/^ISA\*00\*.{10}\*00\*.{10}\*ZZ\*CASCADEHP {6}\*ZZ\*NWBILLING {6}\*/);
    expect(r!.ack).toContain("TA1*000000101*260115*1230*A*000");
    expect(r!.ack).toContain("AK9*A*1*1*1");
    await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, SENDER));
    const stored = await message(t, r!.message_id);
    expect(stored.status).toBe("processed");
    expect(stored.executions).toHaveLength(1);
    const claims = (await (await t.fetch(`/fhir/r4/${t.orgId}/Claim`)).json()) as { entry?: { resource: { id: string } }[] };
    expect(claims.entry).toHaveLength(1);
    expect(stored.resources).toContain(`Claim/${claims.entry![0]!.resource.id}`);
    const [again] = await send(t, [{ id: "f-2", raw: P837 }]);
    expect(again).toMatchObject({ status: "duplicate", message_id: r!.message_id });

    const other = await createTenant();
    expect((await other.fetch(`/api/hl7/messages/${r!.message_id}`)).status).toBe(404);
    expect(((await (await other.fetch(`/fhir/r4/${other.orgId}/Claim`)).json()) as { total?: number; entry?: unknown[] }).entry ?? []).toHaveLength(0);
  });

  it("rejects a file with issues, the 999 naming them, and routes nothing", async () => {
    const t = await createTenant();
    await claimPipeline(t, {});
    const [r] = await send(t, [{ id: "bad", raw: P837_ERRORS }]);
    expect(r).toMatchObject({ status: "rejected", error: { code: expect.stringMatching(/^X12_/) } });
    expect(r!.error!.message).toMatch(/at segment/);
    expect(r!.ack).toMatch(/IK3\*[A-Z0-9]+\*\d+/);
    expect(r!.ack).toMatch(/AK9\*R/);
    const [junk] = await send(t, [{ id: "junk", raw: "not x12 at all" }]);
    expect(junk).toMatchObject({ status: "rejected", error: { code: "X12_NO_ISA" } });
    expect(junk!.ack).toBeUndefined();
  });

  it("leaves an interchange of another set to pipelines that ask for it", async () => {
    const t = await createTenant();
    await claimPipeline(t, { transaction_set: "835" });
    const [r] = await send(t, [{ id: "f", raw: P837 }]);
    await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, SENDER));
    expect((await message(t, r!.message_id)).status).toBe("unrouted");
  });
});
