// Outbound HL7 v2 over MLLP from the Worker (cloudflare:sockets): one request/ACK exchange per
// connection, a connection probe, and the mllp connector type that offers both to the
// connectors feature. Framing and endpoint parsing are in mllp-framing.ts.
import type { ConnectorType } from "../../features/connectors";
import { ApiError } from "../../platform/errors";
import { readAck } from "./ack";
import { guardedConnect } from "../../platform/outbound/connect";
import type { OutboundPolicy } from "../../platform/outbound/policy";
import { frame, type MllpEndpoint, MllpUnframer, parseMllpEndpoint } from "./mllp-framing";

/** A TCP (or TLS) connection to the endpoint, if the outbound guard allows it. */
function open(endpoint: MllpEndpoint, policy: OutboundPolicy): Socket {
  return guardedConnect(policy, { hostname: endpoint.hostname, port: endpoint.port }, { secureTransport: endpoint.tls ? "on" : "off", allowHalfOpen: false });
}

export interface MllpSendOptions {
  timeoutMs: number;
  /** Which destinations are allowed (outboundPolicyOf(env)). */
  policy: OutboundPolicy;
  /** The execution's signal: a cancelled run stops waiting for the ACK. */
  signal?: AbortSignal;
}

/**
 * Sends one framed message and resolves with the first framed answer (the ACK).
 * Errors: HL7_SEND_TIMEOUT when no complete answer arrives in time,
 * HL7_SEND_FAILED when the connection fails or closes before an answer.
 */
export async function mllpSend(endpoint: MllpEndpoint, message: string, opts: MllpSendOptions): Promise<string> {
  const where = `${endpoint.hostname}:${endpoint.port}`;
  const socket = open(endpoint, opts.policy);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(504, "HL7_SEND_TIMEOUT", `No ACK from ${where} within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    onAbort = () => reject(new ApiError(499, "HL7_SEND_CANCELLED", `Sending to ${where} was cancelled`));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const exchange = async (): Promise<string> => {
    await socket.opened;
    const writer = socket.writable.getWriter();
    await writer.write(frame(message));
    writer.releaseLock();
    const reader = socket.readable.getReader();
    const unframer = new MllpUnframer();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new ApiError(502, "HL7_SEND_FAILED", `${where} closed the connection without an ACK`);
      const [ack] = unframer.push(value);
      if (ack !== undefined) return ack;
    }
  };
  try {
    return await Promise.race([
      exchange().catch((err: unknown) => {
        if (err instanceof ApiError) throw err;
        throw new ApiError(502, "HL7_SEND_FAILED", `MLLP connection to ${where} failed: ${err instanceof Error ? err.message : String(err)}`);
      }),
      stop,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
    // Closing rejects pending reads; that rejection is expected and must not surface as unhandled.
    socket.close().catch(() => undefined);
  }
}

/** Opens (and closes) a connection to check an MLLP endpoint is reachable; used by the connector test. */
export async function mllpProbe(endpoint: MllpEndpoint, timeoutMs: number, policy: OutboundPolicy): Promise<void> {
  const socket = open(endpoint, policy);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      socket.opened,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    socket.close().catch(() => undefined);
  }
}

/** The mllp connector type: endpoints mllp://host:port (mllps:// for TLS), one message and its ACK per exchange. */
export const MLLP_CONNECTOR_TYPE: ConnectorType = {
  type: "mllp",
  name: "HL7 v2 MLLP endpoint",
  description:
    "An HL7 v2 interface engine or EHR listening for MLLP at mllp://host:port (mllps:// for TLS); used by the HL7 send node. The connection test opens a TCP (or TLS) connection",
  auth_kinds: ["none"],
  schemes: ["mllp", "mllps"],
  test_path: "",
  transport: {
    address: parseMllpEndpoint,
    probe: (endpoint, timeoutMs, policy) => mllpProbe(parseMllpEndpoint(endpoint), timeoutMs, policy),
    exchange: (endpoint, message, opts) => mllpSend(parseMllpEndpoint(endpoint), message, opts),
    readAnswer: readAck,
  },
};
