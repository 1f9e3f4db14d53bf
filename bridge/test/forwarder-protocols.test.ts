// The forwarder with two protocols: each protocol's batches go to its own Worker endpoint in its
// own body shape (HL7 v2's unchanged), in order per (protocol, sender), and a protocol whose
// endpoint refuses does not hold up the other. "fake" is a protocol that exists only here.
import { afterEach, expect, it } from "vitest";
import { Forwarder } from "../src/forwarder";
import { createLogger } from "../src/log";
import { type IncomingMessage, MessageQueue } from "../src/message-queue";
import { Metrics } from "../src/metrics";
import type { ForwardTarget } from "../src/protocol";
import { HL7_MESSAGES_PATH, HL7_PROTOCOL, hl7Target } from "../src/protocols/hl7/adapter";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { tempDir, waitFor } from "./support/harness";

interface FakeBatch {
  items: { ref: string; device: string; payload: string }[];
}

const FAKE: ForwardTarget = {
  protocol: "fake",
  path: "/api/v1/fake/readings",
  body: (messages): FakeBatch => ({
    items: messages.map((m) => ({ ref: m.id, device: m.sender ?? "", payload: m.raw })),
  }),
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const worker = await FakeWorker.start();
  cleanups.push(() => worker.close());
  const temp = tempDir("bridge-lanes-");
  cleanups.push(() => temp.remove());
  const queue = new MessageQueue(temp.dir);
  cleanups.push(() => queue.close());
  const metrics = new Metrics();
  const forwarder = new Forwarder(queue, metrics, createLogger("error"), [hl7Target, FAKE], {
    workerUrl: worker.url,
    apiKey: worker.apiKey,
    orgId: worker.orgId,
    requestTimeoutMs: 5000,
    batchMaxMessages: 2,
    batchMaxBytes: 1024 * 1024,
    retryBaseMs: 20,
    retryMaxMs: 200,
    misconfiguredRetryMs: 200,
    maxRetryAfterMs: 1000,
    idlePollMs: 50,
    batchLingerMs: 0,
  });
  cleanups.push(() => forwarder.stop());
  return { worker, queue, metrics, forwarder };
}

const adt = fixture("ADT-A01-01.hl7");
const received = () => ({ receivedAt: new Date().toISOString(), remoteAddress: "127.0.0.1:1" });
const hl7 = (controlId: string): IncomingMessage => ({
  protocol: HL7_PROTOCOL,
  sender: "APP|FAC",
  controlId,
  messageType: "ADT^A01",
  raw: withHeader(adt, "APP", "FAC", controlId),
  listener: "mllp",
  ...received(),
});
// The same sender and control ids as the HL7 messages: under another protocol they are other messages.
const fake = (controlId: string): IncomingMessage => ({
  protocol: "fake",
  sender: "APP|FAC",
  controlId,
  messageType: "reading",
  raw: `reading ${controlId}`,
  listener: "fake-listener",
  ...received(),
});

it("posts each protocol's batches to its own target, in order, HL7 v2 in today's shape", async () => {
  const { worker, queue, forwarder } = await setup();
  const fakeBatches: FakeBatch[] = [];
  worker.endpoints.set(FAKE.path, (body) => {
    const batch = body as FakeBatch;
    fakeBatches.push(batch);
    return { results: batch.items.map((i) => ({ id: i.ref, status: "accepted", message_id: `m-${i.ref}` })) };
  });
  const ids = ["C1", "C2", "C3", "C4", "C5"];
  for (const id of ids) {
    await queue.enqueue(hl7(id));
    await queue.enqueue(fake(id));
  }
  forwarder.start();
  await waitFor(() => queue.depths().pending === 0, "both protocols drained");

  // HL7 v2: the fake Worker's HL7 endpoint checks today's body shape and reads each MSH.
  expect(worker.acceptedFrom("APP|FAC")).toEqual(ids);
  expect(worker.deliveries.every((d) => d.raw.startsWith("MSH|"))).toBe(true);
  expect(fakeBatches.flatMap((b) => b.items.map((i) => i.payload))).toEqual(ids.map((id) => `reading ${id}`));
  const byPath = (path: string) => worker.requests.filter((r) => r.path === path).length;
  expect(byPath(HL7_MESSAGES_PATH)).toBe(3);
  expect(byPath(FAKE.path)).toBe(3);
  expect(worker.requests).toHaveLength(6);
});

it("keeps forwarding one protocol while another's endpoint refuses, and reports each lane", async () => {
  const { worker, queue, metrics, forwarder } = await setup();
  // No endpoint for FAKE.path: the fake Worker answers 404, a configuration problem.
  await queue.enqueue(fake("F1"));
  await queue.enqueue(hl7("H1"));
  await queue.enqueue(hl7("H2"));
  forwarder.start();
  await waitFor(() => worker.accepted.length === 2, "HL7 v2 forwarded past the refused protocol");
  await waitFor(() => metrics.workerFor("fake").consecutiveFailures >= 2, "the refused lane retrying");
  expect(worker.acceptedFrom("APP|FAC")).toEqual(["H1", "H2"]);
  expect(queue.depths().protocols).toEqual({ fake: { pending: 1, error: 0 } });
  expect(metrics.workerFor(HL7_PROTOCOL)).toMatchObject({ lastStatus: 200, consecutiveFailures: 0 });
  expect(metrics.workerFor("fake")).toMatchObject({ lastStatus: 404, reachable: true });
  // The summary shows the lane in trouble.
  expect(metrics.worker.lastStatus).toBe(404);
});
