// What threshold alerts add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { StoredReading } from "./evaluate-readings";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** Device readings just stored as new Observations (webhook, upload, sync, MQTT): threshold alerts evaluate them. */
    readingsStored(stored: readonly StoredReading[]): Promise<void>;
  }
}
