// Wires the bridge together: queue, intake, MLLP listener, forwarder, status endpoint.
// Used by main.ts and, in-process, by tests and the benchmark.
import type { BridgeConfig } from "./config";
import { Forwarder } from "./forwarder";
import { Intake } from "./intake";
import type { Logger } from "./log";
import { MessageQueue } from "./message-queue";
import { Metrics } from "./metrics";
import { startMllpServer } from "./listeners/mllp/server";
import { startStatusServer } from "./status-server";

export interface RunningBridge {
  mllpPort: number;
  statusPort: number;
  queue: MessageQueue;
  metrics: Metrics;
  /** Stops accepting, ends the forwarder's current attempt and closes the queue. */
  stop(): Promise<void>;
}

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const MAX_IN_FLIGHT_PER_CONNECTION = 256;
const IDLE_POLL_MS = 1000;
const BATCH_LINGER_MS = 20;

export async function startBridge(config: BridgeConfig, log: Logger): Promise<RunningBridge> {
  const queue = new MessageQueue(config.dataDir);
  const metrics = new Metrics();
  const forwarder = new Forwarder(queue, metrics, log, {
    ...config,
    idlePollMs: IDLE_POLL_MS,
    batchLingerMs: BATCH_LINGER_MS,
  });
  const wake = () => forwarder.wake();
  const intake = new Intake(queue, metrics, log, config, wake);
  const stops: (() => Promise<void>)[] = [];
  try {
    const mllp = await startMllpServer(
      {
        host: config.mllpHost,
        port: config.mllpPort,
        maxFrameBytes: config.maxFrameBytes,
        encoding: config.encoding,
        tls: config.tls,
        maxInFlightPerConnection: MAX_IN_FLIGHT_PER_CONNECTION,
      },
      {
        message: (payload, remote) => intake.accept(payload, remote),
        oversize: (head, length) => intake.rejectOversize(head, length, config.maxFrameBytes),
      },
      log,
    );
    stops.push(mllp.close);
    const status = await startStatusServer(
      { host: config.statusHost, port: config.statusPort, listener: config.listener },
      queue,
      metrics,
      wake,
    );
    stops.push(status.close);
    forwarder.start();
    const prune = () => {
      const removed = queue.pruneDone(new Date(Date.now() - config.retentionHours * 3600 * 1000));
      if (removed > 0) log.info("pruned_forwarded", { removed });
    };
    prune();
    const pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
    pruneTimer.unref();
    log.info("bridge_started", {
      mllp: `${config.tls ? "mllps" : "mllp"}://${config.mllpHost}:${mllp.port}`,
      status: `http://${config.statusHost}:${status.port}/status`,
      worker_url: config.workerUrl,
      data_dir: config.dataDir,
    });
    return {
      mllpPort: mllp.port,
      statusPort: status.port,
      queue,
      metrics,
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
