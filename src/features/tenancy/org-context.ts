// What tenancy adds to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { orgGate } from "./limits/gate";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The org's OrgGate (rate buckets, concurrency slots, leases). */
    gate(): ReturnType<typeof orgGate>;
  }
}
