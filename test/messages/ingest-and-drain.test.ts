// Inbound HL7 storage and per-sender routing, below HTTP: idempotent ingestion
// on (sender, MSH-10), rejections, FIFO draining, poison messages, retries.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { database } from "../../src/platform/db/client";
import { inboundMessages } from "../../src/features/inbound/tables";
import { ApiError } from "../../src/platform/errors";
import { MAX_ATTEMPTS, backoffMs, drainSender } from "../../src/features/inbound/drain";
import { type InboundMessageInput, ingestMessages } from "../../src/features/inbound/ingest";
import { hl7InboundAdapter } from "../../src/standards/hl7v2/inbound";
import { InboundMessageStore } from "../../src/features/inbound/store";

const adt = (control: string, facility = "HOSP") =>
  `MSH|^~\\&|EPIC|${facility}|CDIS|CDIS|20260101120000||ADT^A01^ADT_A01|${control}|P|2.5.1\rPID|1||123^^^HOSP^MR||Doe^Jane`;

const ingestHl7 = (s: InboundMessageStore, batch: InboundMessageInput[]) => ingestMessages(s, hl7InboundAdapter, batch);
const store = (orgId = `org-${crypto.randomUUID()}`) => new InboundMessageStore(database(env.SHARD_0), orgId, env.BLOBS);
let n = 0;
const msg = (raw: string) => ({ id: `bridge-${++n}`, raw });

describe("HL7 ingestion", () => {
  it("accepts, answers AA with the control id, and stores the message", async () => {
    const s = store();
    const { results, senders } = await ingestHl7(s, [msg(adt("C1"))]);
    expect(results[0]).toMatchObject({ status: "accepted" });
    expect(results[0]!.ack).toMatch(/^MSH\|\^~\\&\|CDIS\|CDIS\|EPIC\|HOSP\|/);
    expect(results[0]!.ack).toContain("\rMSA|AA|C1");
    expect(senders).toEqual(["EPIC|HOSP"]);
    const row = await s.get(results[0]!.message_id);
    expect(row).toMatchObject({ status: "received", controlId: "C1", messageType: "ADT", triggerEvent: "A01", version: "2.5.1", sender: "EPIC|HOSP" });
  });

  it("is idempotent on sender + MSH-10, and on the sender's message id", async () => {
    const s = store();
    const first = await ingestHl7(s, [msg(adt("C2"))]);
    const again = await ingestHl7(s, [msg(adt("C2")), { id: "bridge-fixed", raw: adt("C3") }, { id: "bridge-fixed", raw: adt("C3") }]);
    expect(again.results.map((r) => r.status)).toEqual(["duplicate", "accepted", "duplicate"]);
    expect(again.results[0]!.message_id).toBe(first.results[0]!.message_id);
    expect(again.results[0]!.ack).toContain("MSA|AA|C2");
    // Same control id from another facility is another message.
    expect((await ingestHl7(s, [msg(adt("C2", "OTHER"))])).results[0]!.status).toBe("accepted");
    const listed = await s.list({}, 100, 0);
    expect(listed.total).toBe(3);
    // A list never reads the messages' text (each can be 128 KB inline).
    expect(Object.keys(listed.rows[0]!)).not.toContain("raw");
  });

  it("rejects what cannot be parsed or identified, and keeps it for inspection", async () => {
    const s = store();
    const { results, senders } = await ingestHl7(s, [
      msg("PID|1||123"),
      msg("MSH|^~\\&|EPIC|HOSP|||20260101||ADT^A01||P|2.5"),
      msg(adt("OK1")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "accepted"]);
    expect(results[0]!.error?.code).toBe("HL7_NO_MSH");
    expect(results[0]!.ack).toBeUndefined();
    expect(results[1]!.error?.code).toBe("HL7_MISSING_CONTROL_ID");
    expect(results[1]!.ack).toContain("MSA|AR|");
    expect(senders).toEqual(["EPIC|HOSP"]);
    expect((await s.list({ status: "rejected" }, 10, 0)).total).toBe(2);
  });

  it("accepts LF line ends and a byte-order mark", async () => {
    const s = store();
    const { results } = await ingestHl7(s, [msg(`\uFEFF${adt("LF1").replace(/\r/g, "\n")}\n`)]);
    expect(results[0]!.status).toBe("accepted");
    expect((await s.get(results[0]!.message_id))!.raw).not.toContain("\n");
  });

  it("never shows one organization's messages to another", async () => {
    const a = store();
    const b = store();
    const { results } = await ingestHl7(a, [msg(adt("T1"))]);
    expect(await b.get(results[0]!.message_id)).toBeUndefined();
    expect((await b.list({}, 10, 0)).total).toBe(0);
    // The same sender and control id in another org is that org's own message.
    expect((await ingestHl7(b, [msg(adt("T1"))])).results[0]!.status).toBe("accepted");
  });
});

describe("per-sender draining", () => {
  it("processes a sender's messages in arrival order and records the results", async () => {
    const s = store();
    await ingestHl7(s, ["A", "B", "C"].map((c) => msg(adt(c))));
    await ingestHl7(s, [msg(adt("X", "ELSEWHERE"))]);
    const seen: string[] = [];
    const outcome = await drainSender(s, "EPIC|HOSP", async (m) => {
      seen.push(m.controlId!);
      return { executions: [`exec-${m.controlId}`], resources: [`Patient/${m.controlId}`] };
    }, { budgetMs: 10_000 });
    expect(outcome).toEqual({ state: "idle", processed: 3 });
    expect(seen).toEqual(["A", "B", "C"]);
    const processed = await s.list({ status: "processed" }, 10, 0);
    expect(processed.rows.map((r) => r.resources[0])).toEqual(["Patient/C", "Patient/B", "Patient/A"]);
    expect((await s.list({ status: "received" }, 10, 0)).rows.map((r) => r.controlId)).toEqual(["X"]);
  });

  it("marks a message nothing consumes unrouted, not processed, and lets it be requeued", async () => {
    const s = store();
    const { results } = await ingestHl7(s, [msg(adt("U1")), msg(adt("U2"))]);
    const outcome = await drainSender(s, "EPIC|HOSP", async (m) => (m.controlId === "U1" ? null : { executions: ["e"], resources: [] }), { budgetMs: 10_000 });
    expect(outcome).toEqual({ state: "idle", processed: 2 });
    expect(await s.get(results[0]!.message_id)).toMatchObject({ status: "unrouted", executions: [], error: null });
    expect((await s.list({ status: "unrouted" }, 10, 0)).rows.map((r) => r.controlId)).toEqual(["U1"]);
    expect((await s.list({ status: "processed" }, 10, 0)).rows.map((r) => r.controlId)).toEqual(["U2"]);
    await s.requeue(results[0]!.message_id);
    expect((await s.nextPending("EPIC|HOSP"))[0]!.controlId).toBe("U1");
  });

  it("commits a handler's writes in one batch with the message's status", async () => {
    const orgId = `org-${crypto.randomUUID()}`;
    const s = store(orgId);
    const { results } = await ingestHl7(s, [msg(adt("W1")), msg(adt("W2", "ELSEWHERE"))]);
    const other = results[1]!.message_id;
    const db = database(env.SHARD_0);
    const mark = db.update(inboundMessages).set({ source: { noted: "by W1" } }).where(and(eq(inboundMessages.orgId, orgId), eq(inboundMessages.id, other)));
    await drainSender(s, "EPIC|HOSP", async () => ({ executions: [], resources: [], writes: [mark] }), { budgetMs: 10_000 });
    expect((await s.get(results[0]!.message_id))?.status).toBe("processed");
    expect((await s.get(other))?.source).toEqual({ noted: "by W1" });
  });

  it("keeps arrival order across many messages, a poison one among them, and messages arriving mid-drain", async () => {
    const s = store();
    const controls = Array.from({ length: 45 }, (_, i) => `M${String(i).padStart(2, "0")}`);
    await ingestHl7(s, controls.slice(0, 30).map((c) => msg(adt(c))));
    const seen: string[] = [];
    const outcome = await drainSender(s, "EPIC|HOSP", async (m) => {
      seen.push(m.controlId!);
      // Later messages arrive while the line is being drained.
      if (m.controlId === "M05") await ingestHl7(s, controls.slice(30).map((c) => msg(adt(c))));
      if (m.controlId === "M21") throw new ApiError(422, "BAD_MESSAGE", "cannot map");
      return { executions: [], resources: [] };
    }, { budgetMs: 10_000 });
    expect(outcome).toEqual({ state: "idle", processed: 45 });
    expect(seen).toEqual(controls);
    expect((await s.list({ status: "failed" }, 10, 0)).rows.map((r) => r.controlId)).toEqual(["M21"]);
  });

  it("marks a poison message failed and moves on", async () => {
    const s = store();
    await ingestHl7(s, ["P1", "BAD", "P2"].map((c) => msg(adt(c))));
    const outcome = await drainSender(s, "EPIC|HOSP", async (m) => {
      if (m.controlId === "BAD") throw new ApiError(422, "PIPELINE_FAILED", "mapping failed");
      return { executions: [], resources: [] };
    }, { budgetMs: 10_000 });
    expect(outcome.processed).toBe(3);
    const failed = (await s.list({ status: "failed" }, 10, 0)).rows;
    expect(failed.map((r) => [r.controlId, r.error?.code])).toEqual([["BAD", "PIPELINE_FAILED"]]);
    expect((await s.list({ status: "processed" }, 10, 0)).total).toBe(2);
  });

  it("holds the line on a transient failure, retries with backoff, then gives up", async () => {
    const s = store();
    await ingestHl7(s, ["T1", "T2"].map((c) => msg(adt(c))));
    let now = 1_000_000;
    const flaky = async () => {
      throw new Error("D1 unavailable");
    };
    const first = await drainSender(s, "EPIC|HOSP", flaky, { budgetMs: 10_000, now: () => now });
    expect(first).toEqual({ state: "retry-later", processed: 0, retryAt: now + backoffMs(1) });
    expect((await s.list({ status: "received" }, 10, 0)).total).toBe(2);
    for (let attempt = 2; attempt < MAX_ATTEMPTS; attempt++) {
      now += 1000;
      expect((await drainSender(s, "EPIC|HOSP", flaky, { budgetMs: 10_000, now: () => now })).state).toBe("retry-later");
    }
    // The last attempt fails the head for good; T2 then gets its own chances.
    const last = await drainSender(s, "EPIC|HOSP", flaky, { budgetMs: 10_000, now: () => now });
    expect(last).toMatchObject({ state: "retry-later", processed: 1 });
    const t1 = (await s.list({ controlId: "T1" }, 1, 0)).rows[0]!;
    expect(t1).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS });
    expect(t1.error?.message).toBe("D1 unavailable");
  });

  it("requeues a processed message at the head of its sender's line", async () => {
    const s = store();
    const { results } = await ingestHl7(s, [msg(adt("R1"))]);
    await drainSender(s, "EPIC|HOSP", async () => ({ executions: [], resources: [] }), { budgetMs: 10_000 });
    await ingestHl7(s, [msg(adt("R2"))]);
    await s.requeue(results[0]!.message_id);
    expect((await s.nextPending("EPIC|HOSP"))[0]!.controlId).toBe("R1");
  });
});
