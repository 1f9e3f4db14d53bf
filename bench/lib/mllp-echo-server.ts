// Baseline for bench/mllp.ts: the bridge's own MLLP listener and HL7 adapter with no queue,
// so the benchmark's ratio isolates the cost of durability (SQLite commit before the ACK).
import { startMllpServer } from "../../bridge/src/listeners/mllp/server";
import { createLogger } from "../../bridge/src/log";
import { hl7Adapter } from "../../bridge/src/protocols/hl7/adapter";

const adapter = hl7Adapter({ alwaysAck: true });
const server = await startMllpServer(
  { host: "127.0.0.1", port: 0, maxFrameBytes: 4 * 1024 * 1024, encoding: "utf8", maxInFlightPerConnection: 256 },
  {
    message: async (payload, remote) => {
      const reading = adapter.read(payload.toString("utf8"), remote);
      return adapter.reply(reading.header, reading.refusal ? "rejected" : "accepted", { replyId: crypto.randomUUID() });
    },
    oversize: () => null,
  },
  createLogger("error"),
);
process.stdout.write(`${JSON.stringify({ event: "listening", mllp_port: server.port, status_port: 0 })}\n`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
