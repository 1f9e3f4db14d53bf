// The X12 folder listener end to end: a file dropped in the inbox is queued (protocol x12,
// sender ISA06|GS02, control id ISA13), answered with its 999/TA1 in the outbox, moved to the
// done folder, and forwarded to the Worker's X12 endpoint; a broken file is answered with a
// rejecting 999 and not forwarded; a resend of the same interchange is forwarded once.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { X12_MESSAGES_PATH } from "../src/protocols/x12/adapter";
import { FakeWorker } from "./support/fake-worker";
import { startTestBridge, tempDir, waitFor } from "./support/harness";

const FIXTURES = path.resolve(import.meta.dirname, "../../test/fixtures/x12");
const P837 = readFileSync(path.join(FIXTURES, "837P-subscriber.x12"), "utf8");
const P837_ERRORS = readFileSync(path.join(FIXTURES, "837P-errors.x12"), "utf8");

let worker: FakeWorker;
let harness: Awaited<ReturnType<typeof startTestBridge>>;
const folders = tempDir("bridge-x12-");
const dir = (name: string) => path.join(folders.dir, name);
const forwarded: { id: string; raw: string }[] = [];

beforeAll(async () => {
  worker = await FakeWorker.start();
  worker.endpoints.set(X12_MESSAGES_PATH, (body) => {
    const { messages } = body as { messages: { id: string; raw: string }[] };
    forwarded.push(...messages);
    return { results: messages.map((m) => ({ id: m.id, status: "accepted", message_id: `m-${m.id}` })) };
  });
  harness = await startTestBridge(worker, {
    BRIDGE_LISTENERS: "x12-folder",
    X12_INBOX_DIR: dir("inbox"),
    X12_OUTBOX_DIR: dir("outbox"),
    X12_DONE_DIR: dir("done"),
    X12_POLL_MS: "20",
    X12_SETTLE_MS: "0",
  });
});
afterAll(async () => {
  await harness?.stop();
  await worker?.close();
  folders.remove();
});

describe("X12 folder listener", () => {
  it("queues, answers, moves and forwards a dropped file; a resend is forwarded once", async () => {
    writeFileSync(dir("inbox/claims-1.x12"), P837);
    await waitFor(() => existsSync(dir("done/claims-1.x12")), "file taken");
    const ack = readFileSync(dir("outbox/claims-1.x12.ack"), "utf8");
    expect(ack).toContain("TA1*000000101*260115*1230*A*000~");
    expect(ack).toContain("AK9*A*1*1*1~");
    await waitFor(() => forwarded.length >= 1, "forwarded");
    expect(forwarded[0]!.raw).toBe(P837.trim());
    writeFileSync(dir("inbox/claims-again.x12"), P837);
    await waitFor(() => existsSync(dir("done/claims-again.x12")), "resend taken");
    await new Promise((r) => setTimeout(r, 200));
    expect(forwarded).toHaveLength(1);
  });

  it("answers a broken file with a rejecting 999 and does not forward it", async () => {
    writeFileSync(dir("inbox/broken.x12"), P837_ERRORS.replace("000000101", "000000102").replace("000000101", "000000102"));
    await waitFor(() => existsSync(dir("done/broken.x12")), "broken file taken");
    expect(readFileSync(dir("outbox/broken.x12.ack"), "utf8")).toMatch(/AK9\*R/);
    await new Promise((r) => setTimeout(r, 200));
    expect(forwarded.map((m) => m.raw).some((r) => r.includes("000000102"))).toBe(false);
    expect(readdirSync(dir("inbox"))).toEqual([]);
  });
});
