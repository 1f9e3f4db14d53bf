// MLLP intake over loopback: framing edge cases, ACK codes, durable enqueue before ACK,
// the error queue for unreadable messages, and local idempotency on MSH-10.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ackPolicy, readHeader } from "../src/protocols/hl7/header";
import { frame } from "../src/listeners/mllp/framing";
import { FakeWorker } from "./support/fake-worker";
import { fixture, fixtureNames, withHeader } from "./support/fixtures";
import { getJson, startTestBridge, waitFor } from "./support/harness";
import { MllpClient, msa } from "./support/mllp-client";

const MAX_FRAME = 256 * 1024;
let worker: FakeWorker;
let harness: Awaited<ReturnType<typeof startTestBridge>>;
const adt = fixture("ADT-A01-01.hl7");
const oru = fixture("ORU-R01-01.hl7");

beforeAll(async () => {
  worker = await FakeWorker.start();
  harness = await startTestBridge(worker, { MLLP_MAX_FRAME_BYTES: String(MAX_FRAME) });
});
afterAll(async () => {
  await harness?.stop();
  await worker?.close();
});

const connect = () => MllpClient.connect(harness.bridge.mllpPort);

describe("MLLP intake", () => {
  it("ACKs every sample message with its MSH-10 and the code MSH-15 asks for, and forwards it", async () => {
    const client = await connect();
    const marker = "AFTER-SAMPLE";
    for (const name of fixtureNames()) {
      const text = fixture(name);
      const parsed = readHeader(text);
      expect(parsed.ok, name).toBe(true);
      if (!parsed.ok) continue;
      const expected = ackPolicy(parsed.header, "accepted");
      client.write(frame(Buffer.from(text)));
      // A sample whose MSH-15 asks for no commit ACK (NE, ER) gets none: the next reply on
      // this connection must then belong to the original-mode message sent after it.
      const probe = withHeader(adt, "PROBE", "FAC", `${marker}-${name}`);
      client.write(frame(Buffer.from(probe)));
      if (expected !== null) {
        const ack = msa(await client.nextReply());
        expect(ack, name).toMatchObject({ code: expected, controlId: parsed.header.controlId });
      }
      expect(msa(await client.nextReply())).toMatchObject({ code: "AA", controlId: `${marker}-${name}` });
    }
    client.close();
    const distinct = new Set(
      fixtureNames().map((n) => {
        const h = readHeader(fixture(n));
        return h.ok ? `${h.header.sendingApplication}|${h.header.sendingFacility}|${h.header.controlId}` : n;
      }),
    ).size;
    await waitFor(() => worker.accepted.length >= distinct + fixtureNames().length, "all samples forwarded");
    const forwardedRaw = new Set(worker.accepted.map((m) => m.raw));
    expect(forwardedRaw.has(oru)).toBe(true);
  });

  it("reads two frames arriving in one TCP packet as two messages", async () => {
    const client = await connect();
    const first = withHeader(adt, "TWO", "PKT", "TWO-1");
    const second = withHeader(oru, "TWO", "PKT", "TWO-2");
    client.write(Buffer.concat([frame(Buffer.from(first)), frame(Buffer.from(second))]));
    expect(msa(await client.nextReply())).toMatchObject({ code: "AA", controlId: "TWO-1" });
    // ORU-R01-01 has MSH-15 = AL: enhanced mode, commit accept.
    expect(msa(await client.nextReply())).toMatchObject({ code: "CA", controlId: "TWO-2" });
    client.close();
    await waitFor(() => worker.acceptedFrom("TWO|PKT").length === 2, "both forwarded");
    expect(worker.acceptedFrom("TWO|PKT")).toEqual(["TWO-1", "TWO-2"]);
  });

  it("reassembles a frame split across packets and ignores bytes outside frames", async () => {
    const client = await connect();
    const message = withHeader(adt, "SPLIT", "PKT", "SPLIT-1");
    const bytes = Buffer.concat([Buffer.from("noise\r\n"), frame(Buffer.from(message)), Buffer.from("\n")]);
    const cuts = [3, 8, 40, bytes.length - 2, bytes.length - 1];
    let from = 0;
    for (const cut of cuts) {
      client.write(bytes.subarray(from, cut));
      from = cut;
      await new Promise((resolve) => setImmediate(resolve));
    }
    client.write(bytes.subarray(from));
    expect(msa(await client.nextReply())).toMatchObject({ code: "AA", controlId: "SPLIT-1" });
    client.close();
    await waitFor(() => worker.accepted.find((m) => m.controlId === "SPLIT-1"), "split message forwarded");
    expect(worker.accepted.find((m) => m.controlId === "SPLIT-1")?.raw).toBe(message);
  });

  it("answers an oversize frame with AR quoting its MSH-10 and keeps the connection usable", async () => {
    const client = await connect();
    const huge = `${withHeader(adt, "BIG", "FAC", "BIG-1")}NTE|1||${"x".repeat(MAX_FRAME)}\r`;
    const reply = await client.send(huge);
    expect(msa(reply)).toMatchObject({ code: "AR", controlId: "BIG-1" });
    expect(reply).toContain("exceeds");
    expect(msa(await client.send(withHeader(adt, "BIG", "FAC", "BIG-2")))).toMatchObject({ code: "AA", controlId: "BIG-2" });
    client.close();
    await waitFor(() => worker.acceptedFrom("BIG|FAC").length === 1, "the normal message forwarded");
    expect(worker.acceptedFrom("BIG|FAC")).toEqual(["BIG-2"]);
  });

  it("answers a message without a readable MSH with AR and keeps it in the error queue", async () => {
    const client = await connect();
    const reply = await client.send("PID|1||12345\rPV1|1|I\r");
    expect(msa(reply).code).toBe("AR");
    const noControlId = withHeader(adt, "NOID", "FAC", "");
    expect(msa(await client.send(noControlId)).code).toBe("AR");
    client.close();
    const { body } = await getJson<{ errors: { origin: string; raw: string; error: { code: string } }[] }>(
      harness.bridge.statusPort,
      "/errors",
    );
    const raws = body.errors.filter((e) => e.origin === "local").map((e) => e.raw);
    expect(raws).toContain("PID|1||12345\rPV1|1|I\r");
    expect(raws).toContain(noControlId);
    expect(worker.deliveries.some((d) => d.raw === noControlId)).toBe(false);
  });

  it("ACKs a resent MSH-10 again but enqueues and forwards it once", async () => {
    const client = await connect();
    const message = withHeader(adt, "DUP", "FAC", "DUP-1");
    const first = msa(await client.send(message));
    const second = msa(await client.send(message));
    expect(first).toMatchObject({ code: "AA", controlId: "DUP-1" });
    expect(second).toMatchObject({ code: "AA", controlId: "DUP-1" });
    client.close();
    const other = await connect();
    expect(msa(await other.send(message)).code).toBe("AA");
    expect(msa(await other.send(withHeader(adt, "DUP", "FAC", "DUP-2"))).code).toBe("AA");
    other.close();
    await waitFor(() => worker.acceptedFrom("DUP|FAC").length === 2, "DUP-2 forwarded");
    expect(worker.deliveries.filter((d) => d.controlId === "DUP-1")).toHaveLength(1);
    expect(harness.bridge.metrics.snapshot().counters.duplicates).toBeGreaterThanOrEqual(2);
  });

  it("serves many concurrent connections, each in order", async () => {
    const connections = 40;
    const perConnection = 15;
    await Promise.all(
      Array.from({ length: connections }, async (_, c) => {
        const client = await connect();
        for (let i = 0; i < perConnection; i++) {
          const base = i % 2 === 0 ? adt : oru;
          const reply = msa(await client.send(withHeader(base, `CONC${c}`, "FAC", `C${c}-${i}`)));
          expect(reply.controlId).toBe(`C${c}-${i}`);
          expect(["AA", "CA"]).toContain(reply.code);
        }
        client.close();
      }),
    );
    await waitFor(
      () => Array.from({ length: connections }, (_, c) => worker.acceptedFrom(`CONC${c}|FAC`).length).every((n) => n === perConnection),
      "all concurrent messages forwarded",
    );
    for (let c = 0; c < connections; c++) {
      expect(worker.acceptedFrom(`CONC${c}|FAC`)).toEqual(Array.from({ length: perConnection }, (_, i) => `C${c}-${i}`));
    }
    const status = await getJson<{ queue_depth: number; counters: { received: number } }>(harness.bridge.statusPort, "/status");
    expect(status.body.queue_depth).toBe(0);
    expect(status.body.counters.received).toBeGreaterThanOrEqual(connections * perConnection);
  });
});
