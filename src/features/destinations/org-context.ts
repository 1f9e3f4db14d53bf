// What destinations add to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Transports } from "./model";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The deployment's transport per target kind (src/main/delivery.ts): what checks a target at save. */
    readonly deliveryTransports: Transports;
  }
}
