// Wires the bridge together: queue, listeners (each with its intake), forwarder, status endpoint.
// Used by main.ts and, in-process, by tests and the benchmark.
import type { BridgeConfig } from "./config";
import { Forwarder } from "./forwarder";
import { createListener } from "./listeners";
import type { Logger } from "./log";
import { MessageQueue } from "./message-queue";
import { Metrics } from "./metrics";
import { FORWARD_TARGETS } from "./protocols";
import { startStatusServer } from "./status-server";
import { readFileSync } from "node:fs";
import os from "node:os";
import { AllowList, Relay, RelayOutbox } from "./relay";

export interface RunningListener {
  name: string;
  kind: string;
  protocol: string;
  url: string;
  port: number | null;
}

export interface RunningBridge {
  listeners: RunningListener[];
  /** Port of the MLLP listener; 0 when there is none. */
  mllpPort: number;
  statusPort: number;
  queue: MessageQueue;
  metrics: Metrics;
  /** The outbound relay, when a bridge credential is configured. */
  relay: Relay | null;
  /** Stops accepting, ends the forwarder's current attempts and closes the queue. */
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const IDLE_POLL_MS = 1000;
const BATCH_LINGER_MS = 20;
/** The version the relay's hello reports: the repository's. */
const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export async function startBridge(config: BridgeConfig, log: Logger): Promise<RunningBridge> {
  const queue = new MessageQueue(config.dataDir);
  const metrics = new Metrics();
  const forwarder = new Forwarder(queue, metrics, log, FORWARD_TARGETS, {
    ...config,
    idlePollMs: IDLE_POLL_MS,
    batchLingerMs: BATCH_LINGER_MS,
  });
  const wake = () => forwarder.wake();
  const stops: (() => Promise<void>)[] = [];
  try {
    const running: RunningListener[] = [];
    for (const listenerConfig of config.listeners) {
      const listener = createListener(listenerConfig, { queue, metrics, log, onEnqueued: wake, orgId: config.orgId });
      const address = await listener.start();
      stops.push(() => listener.stop());
      running.push({ name: listener.name, kind: listener.kind, protocol: listener.protocol, ...address });
    }
    const status = await startStatusServer(
      { host: config.statusHost, port: config.statusPort, listeners: running.map(({ port: _, ...l }) => l) },
      queue,
      metrics,
      wake,
    );
    stops.push(status.close);
    forwarder.start();
    const relay = config.relay
      ? new Relay(new RelayOutbox(queue.database), { ...config.relay, allow: new AllowList(config.relay.allow), retryBaseMs: config.retryBaseMs, retryMaxMs: config.retryMaxMs, version: VERSION, host: os.hostname(), retentionHours: config.retentionHours }, log)
      : null;
    relay?.start();
    if (relay) stops.push(() => relay.stop());
    const prune = () => {
      const removed = queue.pruneDone(new Date(Date.now() - config.retentionHours * 3600 * 1000));
      if (removed > 0) log.info("pruned_forwarded", { removed });
    };
    prune();
    const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
    pruneTimer.unref();
    log.info("bridge_started", {
      listeners: running.map((l) => `${l.name} (${l.protocol}) ${l.url}`),
      status: `http://${config.statusHost}:${status.port}/status`,
      worker_url: config.workerUrl,
      relay: config.relay ? config.relay.url : "off",
      data_dir: config.dataDir,
    });
    return {
      listeners: running,
      mllpPort: running.find((l) => l.kind === "mllp")?.port ?? 0,
      statusPort: status.port,
      queue,
      metrics,
      relay,
      stop: async () => {
        clearInterval(pruneTimer);
        // Stop intake before the forwarder so nothing is enqueued after the queue closes.
        await Promise.all(stops.map((stop) => stop()));
        await forwarder.stop();
        queue.close();
      },
    };
  } catch (error) {
    await Promise.all(stops.map((stop) => stop()));
    queue.close();
    throw error;
  }
}
