// What the devices feature adds to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { DevicePlatforms } from "./platforms/registry";
import type { PlatformServices } from "./platforms/services";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The deployment's device platforms by kind (src/main/plugins.ts, or its service profile's). */
    readonly devicePlatforms: DevicePlatforms;
    /** The device core's seams the platforms work through (platform-services.ts, or its service profile's). */
    readonly platformServices: PlatformServices;
  }
}
