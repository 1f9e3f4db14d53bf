// Every device platform the service syncs from, one line each: its PlatformAdapter
// (src/features/devices/platform-adapter.ts). The device feature's registry reads this list;
// the vendors (issue #14) add their lines here.
import { devicePlatforms } from "../device-platforms/catalog";
import type { PlatformAdapter } from "../features/devices/platform-adapter";

export const DEVICE_PLATFORMS: readonly PlatformAdapter[] = devicePlatforms;
