// Outbound TCP through the guard: the host is read as the socket API will read it
// (every IPv4 spelling, IPv6 literals, names) and refused before any connection.
import { connect } from "cloudflare:sockets";
import type { TcpProbe } from "./failure";
import { assertAllowed, checkHost, type OutboundPolicy } from "./policy";

export function guardedConnect(policy: OutboundPolicy, address: { hostname: string; port: number }, options: SocketOptions): Socket {
  assertAllowed(checkHost(address.hostname, address.port, policy));
  return connect(address, options);
}

const PROBE_MS = 5_000;

/** Whether a TCP connection opens, through the outbound guard (failure.ts tells DNS from TLS with it): a destination the policy refuses is never contacted. */
export const tcpProbe =
  (policy: OutboundPolicy): TcpProbe =>
  async (host, port) => {
    if (!checkHost(host, port, policy).ok) return false;
    try {
      const socket = connect({ hostname: host, port });
      const opened = await Promise.race([socket.opened.then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), PROBE_MS))]);
      await socket.close().catch(() => undefined);
      return opened;
    } catch {
      return false;
    }
  };
