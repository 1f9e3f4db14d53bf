// Why the canvas refuses a connection, in words, from the same rule the service's validator uses
// (portsCompatible), so a refused drag or click says what the target port takes.
import { portAccepts, portsCompatible } from "../../../src/features/pipelines/port-compatibility";
import type { Port } from "./catalog";

export interface PortEnd {
  node: string;
  port: string;
  /** The port as the catalog describes it; undefined when the node type has no such port. */
  def: Port | undefined;
}

/** The reason a connection from an output to an input is refused, or undefined when it is allowed. */
export function connectionRefusal(from: PortEnd, to: PortEnd, connected: (from: PortEnd, to: PortEnd) => boolean): string | undefined {
  if (from.node === to.node) return `A node cannot connect to itself (${from.node}).`;
  if (!from.def) return `${from.node} has no output port ${from.port}.`;
  if (!to.def) return `${to.node} has no input port ${to.port}.`;
  if (!portsCompatible(from.def.type, to.def.type)) {
    return `Not connected: ${from.node}.${from.port} gives ${from.def.type}, but ${to.node}.${to.port} takes ${portAccepts(to.def.type)}.`;
  }
  if (connected(from, to)) return `${from.node}.${from.port} is already connected to ${to.node}.${to.port}.`;
  return undefined;
}
