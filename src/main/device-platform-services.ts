// Which device platforms and which device-core seams a deployment's platforms work through: the
// plug-ins' (plugins.ts) and the device core's (features/devices/platform-services.ts),
// unless the deployment's service profile replaces them (the Worker tests' vendor fakes and
// stand-in vendors). Read at each use, as a profile's choice is; context.ts hands both down.
import { devicePlatformServices } from "../features/devices/platform-services";
import type { DevicePlatform } from "../features/devices/platforms/platform";
import { type DevicePlatforms, devicePlatformRegistry } from "../features/devices/platforms/registry";
import type { PlatformServices } from "../features/devices/platforms/services";
import type { Env } from "../platform/env";
import { serviceProfileOf } from "../platform/service-profiles";
import { DEVICE_PLATFORMS } from "./catalogs";

/** What a service profile (service-profile.ts) may replace of the device platforms; undefined: the real ones. */
export interface DevicePlatformProfile {
  /** The wearable platforms' seams to the device core and the vendors' network. */
  devicePlatforms(env: Env): PlatformServices | undefined;
  /** The device platforms in place of the catalog's (the catalog's and a test's stand-in vendors). */
  devicePlatformCatalog(env: Env): readonly DevicePlatform[] | undefined;
}

const deployed = devicePlatformRegistry(DEVICE_PLATFORMS);

/** The platforms of `env`: the service profile's list, else the catalog's. */
export function devicePlatformsOf(env: Env): DevicePlatforms {
  const listed = serviceProfileOf<DevicePlatformProfile>(env)?.devicePlatformCatalog?.(env);
  return listed ? devicePlatformRegistry(listed) : deployed;
}

/** The seams for `env`: the deployment's service profile's (the Worker tests' vendor fakes), else the device core's. */
export function platformServices(env: Env): PlatformServices {
  return serviceProfileOf<DevicePlatformProfile>(env)?.devicePlatforms?.(env) ?? devicePlatformServices;
}
