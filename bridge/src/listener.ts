// A listener receives messages over one transport (MLLP, a folder, MQTT) and hands each to its
// intake; the rest of the bridge knows listeners only through this interface.

export interface ListenerAddress {
  /** Where it listens or what it subscribes to, for the start-up log (e.g. mllp://0.0.0.0:2575). */
  url: string;
  /** The bound port for a server listener; null for a client (e.g. an MQTT subscription). */
  port: number | null;
}

export interface Listener {
  /** Sent with each message as source.listener. */
  readonly name: string;
  /** The transport, e.g. "mllp". */
  readonly kind: string;
  /** The protocol adapter its messages go through, e.g. "hl7v2". */
  readonly protocol: string;
  start(): Promise<ListenerAddress>;
  /** Stops receiving; resolves once nothing more will be handed to the intake. */
  stop(): Promise<void>;
}

/** Where a listener hands what it receives (the intake): each call returns the reply to send, or null for none. */
export interface MessageSink {
  accept(text: string, remoteAddress: string): Promise<string | null>;
  /** A message the listener would not take whole (e.g. too large); `head` is what it kept of it. */
  refuse(head: string, reason: string): string | null;
}
