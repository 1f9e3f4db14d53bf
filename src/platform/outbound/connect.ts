// Outbound TCP through the guard: the host is read as the socket API will read it
// (every IPv4 spelling, IPv6 literals, names) and refused before any connection.
import { connect } from "cloudflare:sockets";
import { assertAllowed, checkHost, type OutboundPolicy } from "./policy";

export function guardedConnect(policy: OutboundPolicy, address: { hostname: string; port: number }, options: SocketOptions): Socket {
  assertAllowed(checkHost(address.hostname, address.port, policy));
  return connect(address, options);
}
