// The inbound protocols this deployment accepts, by name. The composition root fills it
// (src/main/plugins.ts); the generic inbound modules look adapters up here.
import { notFound } from "../../platform/errors";
import type { InboundAdapter } from "./adapter";

export class InboundAdapters {
  // A Map, not an object: a protocol named in a URL (`constructor`, `__proto__`) finds nothing.
  private readonly byProtocol = new Map<string, InboundAdapter>();

  constructor(adapters: readonly InboundAdapter[] = []) {
    for (const adapter of adapters) this.register(adapter);
  }

  /** Adds a protocol; the returned function removes it again (tests plug fakes in this way). */
  register(adapter: InboundAdapter): () => void {
    if (this.byProtocol.has(adapter.protocol)) throw new Error(`Inbound protocol ${adapter.protocol} is already registered`);
    this.byProtocol.set(adapter.protocol, adapter);
    return () => {
      if (this.byProtocol.get(adapter.protocol) === adapter) this.byProtocol.delete(adapter.protocol);
    };
  }

  get(protocol: string): InboundAdapter | undefined {
    return this.byProtocol.get(protocol);
  }

  /** The adapter, or 404 UNKNOWN_PROTOCOL in the API's error shape. */
  require(protocol: string): InboundAdapter {
    const adapter = this.get(protocol);
    if (!adapter) throw notFound(`Unknown inbound protocol ${protocol}; known: ${this.protocols().join(", ")}`, "UNKNOWN_PROTOCOL");
    return adapter;
  }

  all(): InboundAdapter[] {
    return [...this.byProtocol.values()];
  }

  protocols(): string[] {
    return [...this.byProtocol.keys()].sort();
  }
}
