// The outbound relay end to end through the real service (wrangler dev --local, one for the file):
// a registered bridge runs as a child process with its credential; a per-key destination "via
// bridge" delivers 200 enqueued messages to a loopback MLLP receiver in this process that ACKs AA,
// then AE for a few, then drops every connection for a while and recovers; midway the bridge is
// killed with SIGKILL and restarted on the same data directory. Every message ends `delivered`;
// the receiver accepts each one, in order per key, and a message accepted twice is always the
// same delivery id (see `repeats` below); the bridge's status goes offline and back online. A
// second organization's bridge, connected all along, delivers only its own organization's messages,
// and delivers again one of them that its operator reprocesses.
import { DatabaseSync } from "node:sqlite";
import { createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Credentials, type RunningWorker, startWorker } from "../../bench/lib/worker";
import { frame, MllpDecoder } from "../src/listeners/mllp/framing";
import { type ChildBridge, spawnBridge, stopBridge } from "./support/child-bridge";
import { fixture, withHeader } from "./support/fixtures";
import { bridgeEnv, tempDir, waitFor } from "./support/harness";

const TOTAL = 200;
const KEYS = 10;
/** Receiver script, by the order frames arrive: AA for the first ones, AE for a few, then drops. */
const AA_FIRST = 30;
const AE_COUNT = 8;
const DROP_MS = 1_500;
/** The bridge is killed once the receiver has accepted this many. */
const KILL_AFTER_ACCEPTED = 110;
const CONCURRENCY = 8;
const POLL_MS = 100;

const RUN = Date.now().toString(36).toUpperCase();

interface Frame {
  control: string;
  reply: "AA" | "AE" | "drop";
  at: number;
}

/**
 * An MLLP receiver on loopback following the script above: each frame's MSH-10 and what it got.
 * While dropping, a connection is closed as soon as a frame arrives (no ACK: `refused` upstream).
 */
class ScriptedReceiver {
  readonly frames: Frame[] = [];
  private dropUntil = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(private readonly server: Server, readonly port: number, private readonly script: boolean) {}

  static async start(script: boolean): Promise<ScriptedReceiver> {
    let self: ScriptedReceiver | undefined;
    const server = createServer((socket) => self?.serve(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    self = new ScriptedReceiver(server, port, script);
    return self;
  }

  accepted(): string[] {
    return this.frames.filter((f) => f.reply === "AA").map((f) => f.control);
  }

  private replyFor(now: number): Frame["reply"] {
    if (!this.script) return "AA";
    const n = this.frames.length;
    if (n < AA_FIRST) return "AA";
    if (n < AA_FIRST + AE_COUNT) return "AE";
    if (n === AA_FIRST + AE_COUNT) this.dropUntil = now + DROP_MS;
    return now < this.dropUntil ? "drop" : "AA";
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => undefined);
    const decoder = new MllpDecoder(1024 * 1024);
    socket.on("data", (data: Buffer) => {
      for (const event of decoder.push(data)) {
        if (event.kind !== "frame") return void socket.destroy();
        const message = event.payload.toString("utf8");
        const msh = (message.split("\r")[0] ?? "").split("|");
        const control = msh[9] ?? "";
        const now = Date.now();
        const reply = this.replyFor(now);
        this.frames.push({ control, reply, at: now });
        if (reply === "drop") return void socket.destroy();
        const ack = [`MSH|^~\\&|LIS|LAB|${msh[2] ?? ""}|${msh[3] ?? ""}|20260101000000||ACK|A${control}|P|2.5.1`, `MSA|${reply}|${control}${reply === "AE" ? "|Scripted AE" : ""}`].join("\r");
        socket.write(frame(Buffer.from(ack, "utf8")));
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function call<T>(worker: string, who: Credentials, method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${worker}${pathname}`, {
    method,
    headers: { ...who.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

interface Org {
  who: Credentials;
  bridgeId: string;
  credential: string;
  destinationId: string;
  receiver: ScriptedReceiver;
  dataDir: string;
  bridge?: ChildBridge;
}

interface QueuedMessage {
  id: string;
  key: string | null;
  state: string;
  attempts: number;
  reprocessed: number;
}

let worker: RunningWorker | undefined;
const cleanups: (() => Promise<void> | void)[] = [];

async function setUpOrg(target: RunningWorker, who: Credentials, script: boolean): Promise<Org> {
  const receiver = await ScriptedReceiver.start(script);
  cleanups.push(() => receiver.close());
  const data = tempDir("relay-e2e-");
  cleanups.push(() => data.remove());
  const bridge = await call<{ id: string; credential: string }>(target.url, who, "POST", "/api/v1/bridges", { name: `relay e2e ${who.orgId}` });
  const destination = await call<{ id: string }>(target.url, who, "POST", "/api/v1/destinations", {
    name: `LIS via bridge (${who.orgId})`,
    target: { kind: "bridge", bridge_id: bridge.id, address: `mllp://127.0.0.1:${receiver.port}` },
    ordering: "per_key",
    concurrency: CONCURRENCY,
    retry: { initial_delay_ms: 100, max_delay_ms: 400 },
    timeout_ms: 3_000,
  });
  return { who, bridgeId: bridge.id, credential: bridge.credential, destinationId: destination.id, receiver, dataDir: data.dir };
}

async function startOrgBridge(target: RunningWorker, org: Org): Promise<ChildBridge> {
  const env = bridgeEnv({ url: target.url, apiKey: org.who.apiKey, orgId: org.who.orgId }, org.dataDir, {
    BRIDGE_CREDENTIAL: org.credential,
    RETRY_BASE_MS: "50",
    RETRY_MAX_MS: "300",
  });
  const bridge = await spawnBridge(env);
  org.bridge = bridge;
  return bridge;
}

const bridgeStatus = async (target: RunningWorker, org: Org) =>
  (await call<{ status: string; last_seen_at: string | null }>(target.url, org.who, "GET", `/api/v1/bridges/${org.bridgeId}`)).status;

async function allMessages(target: RunningWorker, org: Org): Promise<QueuedMessage[]> {
  const found: QueuedMessage[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: "100", ...(cursor ? { cursor } : {}) });
    const page: { messages: QueuedMessage[]; next_cursor: string | null } = await call(target.url, org.who, "GET", `/api/v1/destinations/${org.destinationId}/messages?${query}`);
    found.push(...page.messages);
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

/** The delivery ids a bridge's relay holds (its relay_deliveries table). */
function heldBy(org: Org): string[] {
  const db = new DatabaseSync(path.join(org.dataDir, "bridge-queue.sqlite"), { readOnly: true });
  try {
    return (db.prepare("SELECT delivery_id FROM relay_deliveries ORDER BY delivery_id").all() as { delivery_id: string }[]).map((r) => r.delivery_id);
  } finally {
    db.close();
  }
}

const body = (id: string) => withHeader(fixture("ORU-R01-01.hl7"), "CDIS", "HOSP", id);

beforeAll(async () => {
  worker = await startWorker({ otherOrgs: 1 });
}, 90_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await worker?.stop();
}, 60_000);

it("delivers every message once per delivery id, in order per key, across AE, drops and a bridge SIGKILL; another org's bridge gets none", async () => {
  const target = worker;
  const other = target?.others[0];
  if (!target || !other) throw new Error("the service did not start");
  const [a, b] = await Promise.all([setUpOrg(target, target, true), setUpOrg(target, other, false)]);
  cleanups.push(() => a.bridge && stopBridge(a.bridge, "SIGKILL"));
  cleanups.push(() => b.bridge && stopBridge(b.bridge, "SIGKILL"));
  let [bridgeA] = await Promise.all([startOrgBridge(target, a), startOrgBridge(target, b)]);
  await waitFor(async () => (await bridgeStatus(target, a)) === "online" && (await bridgeStatus(target, b)) === "online", "both bridges online", 20_000, POLL_MS);

  // 200 messages over 10 keys (enqueue order = index order), the message id also the MSH-10.
  const ids = Array.from({ length: TOTAL }, (_, i) => `A-${RUN}-${String(i).padStart(3, "0")}`);
  const keyOf = (id: string) => `patient-${Number(id.slice(-3)) % KEYS}`;
  for (let i = 0; i < TOTAL; i += 100) {
    const messages = ids.slice(i, i + 100).map((id) => ({ id, key: keyOf(id), body: body(id), content_type: "x-application/hl7-v2+er7" }));
    await call(target.url, a.who, "POST", `/api/v1/destinations/${a.destinationId}/messages`, { messages });
  }
  const bIds = Array.from({ length: 5 }, (_, i) => `B-${RUN}-${i}`);
  await call(target.url, b.who, "POST", `/api/v1/destinations/${b.destinationId}/messages`, { messages: bIds.map((id) => ({ id, key: "b", body: body(id) })) });

  // Midway (after the AE and drop phases): SIGKILL, offline, restart on the same data directory, online.
  await waitFor(() => a.receiver.accepted().length >= KILL_AFTER_ACCEPTED, `${KILL_AFTER_ACCEPTED} accepted before the kill`, 30_000, 5);
  bridgeA.child.kill("SIGKILL");
  expect(await bridgeA.exited).toBe("SIGKILL");
  const framesAtKill = a.receiver.frames.length;
  await waitFor(async () => (await bridgeStatus(target, a)) === "offline", "bridge A offline after the kill", 10_000, POLL_MS);
  bridgeA = await startOrgBridge(target, a);
  await waitFor(async () => (await bridgeStatus(target, a)) === "online", "bridge A online after the restart", 20_000, POLL_MS);

  const settled = await waitFor(
    async () => {
      const messages = await allMessages(target, a);
      return messages.length === TOTAL && messages.every((m) => m.state === "delivered") ? messages : null;
    },
    "every message delivered",
    30_000,
    250,
  );
  // One message per delivery id: nothing was queued again under a new id.
  expect(settled.map((m) => m.id).sort()).toEqual([...ids].sort());
  expect((await allMessages(target, b)).map((m) => m.state)).toEqual(bIds.map(() => "delivered"));

  const frames = a.receiver.frames;
  // The script ran: AE answers and dropped connections, each retried until accepted.
  expect(frames.filter((f) => f.reply === "AE")).toHaveLength(AE_COUNT);
  expect(frames.filter((f) => f.reply === "drop").length).toBeGreaterThan(0);
  const accepted = a.receiver.accepted();
  expect(new Set(accepted)).toEqual(new Set(ids));
  // What at-least-once allows, precisely: the MSH-10 is the message's delivery id (one body per
  // id), so an MSH-10 accepted twice is the same delivery id delivered again. That happens only to
  // a message the receiver had already been sent when the bridge was killed (its ACK not yet
  // stored as the bridge's outcome), at most one per message in flight (CONCURRENCY), and at most
  // twice.
  const counts = new Map<string, number>();
  for (const id of accepted) counts.set(id, (counts.get(id) ?? 0) + 1);
  const repeats = [...counts].filter(([, n]) => n > 1);
  const sentBeforeKill = new Set(frames.slice(0, framesAtKill).map((f) => f.control));
  for (const [id, n] of repeats) {
    expect(n, id).toBe(2);
    expect(sentBeforeKill.has(id), `${id} accepted twice but not sent before the kill`).toBe(true);
  }
  expect(repeats.length).toBeLessThanOrEqual(CONCURRENCY);
  // Per key, the acceptances are the key's messages in enqueue order (a repeat right after itself).
  for (let k = 0; k < KEYS; k++) {
    const key = `patient-${k}`;
    const order = accepted.filter((id) => keyOf(id) === key).filter((id, i, all) => id !== all[i - 1]);
    expect(order, key).toEqual(ids.filter((id) => keyOf(id) === key));
  }

  // Org B's bridge, connected all along, delivered its own five and held none of A's.
  expect(b.receiver.accepted()).toEqual(bIds);
  expect(heldBy(b)).toEqual([...bIds].sort());
  expect(heldBy(a).filter((id) => id.startsWith("B-"))).toEqual([]);
  expect(accepted.filter((id) => id.startsWith("B-"))).toEqual([]);

  // The operator reprocesses one of B's delivered messages: the bridge, which holds its delivery id
  // as delivered, sends it again (a higher reprocess round), under the same delivery id.
  const again = bIds[1] ?? "";
  await call(target.url, b.who, "POST", `/api/v1/destinations/${b.destinationId}/messages/reprocess`, { message_ids: [again] });
  await waitFor(() => b.receiver.accepted().length === bIds.length + 1, "the reprocessed message accepted again", 20_000, POLL_MS);
  expect(b.receiver.accepted()).toEqual([...bIds, again]);
  const redone = await waitFor(async () => (await allMessages(target, b)).find((m) => m.id === again && m.state === "delivered"), "reprocessed message delivered", 10_000, POLL_MS);
  expect(redone).toMatchObject({ state: "delivered", reprocessed: 1 });
}, 90_000);
