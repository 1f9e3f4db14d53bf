// The durable queue across protocols: idempotency and FIFO are per (protocol, sender), and a
// queue file written by a bridge from before the protocol column opens and keeps its messages.
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { type IncomingMessage, MessageQueue } from "../src/message-queue";
import { tempDir } from "./support/harness";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function openQueue(dir?: string): { queue: MessageQueue; dir: string } {
  const temp = dir === undefined ? tempDir("bridge-queue-") : null;
  if (temp) cleanups.push(() => temp.remove());
  const queue = new MessageQueue(dir ?? temp?.dir ?? "");
  cleanups.push(() => queue.close());
  return { queue, dir: dir ?? temp?.dir ?? "" };
}

function message(protocol: string, sender: string, controlId: string): IncomingMessage {
  return {
    protocol,
    sender,
    controlId,
    messageType: "T",
    raw: `${protocol} ${sender} ${controlId}`,
    receivedAt: new Date().toISOString(),
    listener: `${protocol}-listener`,
    remoteAddress: "127.0.0.1:1",
  };
}

describe("MessageQueue with two protocols", () => {
  it("keeps the same sender and control id under two protocols as two messages", async () => {
    const { queue } = openQueue();
    const first = await queue.enqueue(message("hl7v2", "APP|FAC", "C1"));
    const other = await queue.enqueue(message("x12", "APP|FAC", "C1"));
    const again = await queue.enqueue(message("x12", "APP|FAC", "C1"));
    expect(first.status).toBe("enqueued");
    expect(other.status).toBe("enqueued");
    expect(other.id).not.toBe(first.id);
    expect(again).toEqual({ status: "duplicate", id: other.id });
    expect(queue.depths().protocols).toEqual({ hl7v2: { pending: 1, error: 0 }, x12: { pending: 1, error: 0 } });
  });

  it("hands out each protocol's messages alone, in arrival order per sender", async () => {
    const { queue } = openQueue();
    const order = [
      ["hl7v2", "A", "1"],
      ["x12", "A", "1"],
      ["hl7v2", "B", "1"],
      ["x12", "A", "2"],
      ["hl7v2", "A", "2"],
      ["x12", "B", "1"],
    ];
    for (const [protocol = "", sender = "", id = ""] of order) await queue.enqueue(message(protocol, sender, id));
    const keys = (protocol: string) => queue.nextBatch(protocol, 100, 1024 * 1024).map((m) => `${m.protocol}/${m.sender}/${m.controlId}`);
    expect(keys("hl7v2")).toEqual(["hl7v2/A/1", "hl7v2/B/1", "hl7v2/A/2"]);
    expect(keys("x12")).toEqual(["x12/A/1", "x12/A/2", "x12/B/1"]);
    expect(queue.pendingProtocols()).toEqual(["hl7v2", "x12"]);
  });

  it("keeps the protocol of a message retried from the error queue", async () => {
    const { queue } = openQueue();
    const { id } = await queue.enqueue(message("x12", "A", "1"));
    queue.settle([{ id, status: "rejected", code: "BAD", message: "no" }]);
    expect(queue.listErrors(10).map((e) => e.protocol)).toEqual(["x12"]);
    expect(queue.retry(id)).toBe("requeued");
    expect(queue.nextBatch("x12", 10, 1024).map((m) => m.id)).toEqual([id]);
  });
});

/** The schema of bridges before the protocol column, as they wrote it. */
const OLD_SCHEMA = `
CREATE TABLE messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'error')),
  sender TEXT,
  control_id TEXT,
  message_type TEXT,
  raw TEXT NOT NULL,
  received_at TEXT NOT NULL,
  listener TEXT NOT NULL,
  remote_address TEXT NOT NULL,
  error_origin TEXT,
  error_code TEXT,
  error_message TEXT,
  server_message_id TEXT,
  settled_at TEXT
);
CREATE UNIQUE INDEX messages_sender_control ON messages (sender, control_id) WHERE state <> 'error';
CREATE INDEX messages_pending ON messages (seq) WHERE state = 'pending';
CREATE INDEX messages_error ON messages (seq) WHERE state = 'error';
CREATE INDEX messages_done ON messages (settled_at) WHERE state = 'done';
`;

describe("MessageQueue schema upgrade", () => {
  it("opens a queue file of the old schema: its messages become HL7 v2 and keep their keys", async () => {
    const temp = tempDir("bridge-old-queue-");
    cleanups.push(() => temp.remove());
    const old = new DatabaseSync(path.join(temp.dir, "bridge-queue.sqlite"));
    old.exec(OLD_SCHEMA);
    const insert = old.prepare(
      `INSERT INTO messages (id, state, sender, control_id, message_type, raw, received_at, listener, remote_address, settled_at)
       VALUES (?, ?, 'APP|FAC', ?, 'ADT^A01', ?, '2026-01-01T00:00:00.000Z', 'mllp', '10.0.0.5:1', ?)`,
    );
    insert.run("old-pending", "pending", "P1", "MSH|pending", null);
    insert.run("old-done", "done", "D1", "MSH|done", new Date().toISOString());
    old.close();

    const { queue } = openQueue(temp.dir);
    expect(queue.nextBatch("hl7v2", 10, 1024 * 1024)).toMatchObject([{ id: "old-pending", protocol: "hl7v2", controlId: "P1" }]);
    // The old rows still block a resend of their MSH-10 under HL7 v2 ...
    expect(await queue.enqueue(message("hl7v2", "APP|FAC", "D1"))).toEqual({ status: "duplicate", id: "old-done" });
    expect(await queue.enqueue(message("hl7v2", "APP|FAC", "P1"))).toEqual({ status: "duplicate", id: "old-pending" });
    // ... but no longer the same key under another protocol: the unique index was rebuilt.
    expect((await queue.enqueue(message("x12", "APP|FAC", "P1"))).status).toBe("enqueued");
    expect(queue.depths().protocols).toEqual({ hl7v2: { pending: 1, error: 0 }, x12: { pending: 1, error: 0 } });
    queue.close();
    cleanups.pop();

    // Opening the upgraded file again changes nothing.
    const { queue: reopened } = openQueue(temp.dir);
    expect(reopened.depths()).toMatchObject({ pending: 2, error: 0 });
  });
});
