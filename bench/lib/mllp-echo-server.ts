// Baseline for bench/mllp.ts: the bridge's own MLLP listener and ACK builder with no queue,
// so the benchmark's ratio isolates the cost of durability (SQLite commit before the ACK).
import { ackPolicy, buildAck, readHeader } from "../../bridge/src/protocols/hl7/header";
import { normaliseSegments } from "../../src/hl7v2/parse";
import { createLogger } from "../../bridge/src/log";
import { startMllpServer } from "../../bridge/src/listeners/mllp/server";

const server = await startMllpServer(
  { host: "127.0.0.1", port: 0, maxFrameBytes: 4 * 1024 * 1024, encoding: "utf8", maxInFlightPerConnection: 256 },
  {
    message: async (payload) => {
      const parsed = readHeader(normaliseSegments(payload.toString("utf8")));
      const header = parsed.ok ? parsed.header : null;
      const code = ackPolicy(header, parsed.ok ? "accepted" : "rejected", true) ?? "AA";
      return buildAck(header, { code, ackControlId: crypto.randomUUID() });
    },
    oversize: () => null,
  },
  createLogger("error"),
);
process.stdout.write(`${JSON.stringify({ event: "listening", mllp_port: server.port, status_port: 0 })}\n`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
