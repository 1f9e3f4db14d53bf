// What connectors add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { ConnectorTypeRegistry } from "./types";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The connector types this deployment offers (src/main/plugins.ts), built once per isolate. */
    readonly connectorTypes: ConnectorTypeRegistry;
  }
}
