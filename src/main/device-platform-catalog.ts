// Every device platform the service syncs from and takes webhooks, OAuth links and uploads of, one
// line each: its DevicePlatform (src/features/devices/platforms/platform.ts: the device core's
// PlatformAdapter and what the vendor adds). src/main/device-platform-services.ts hands the
// registry of this list down; a new vendor is a folder under src/features/devices/platforms/ and a line here.
import { garmin } from "../features/devices/platforms/garmin/adapter";
import { googleHealth } from "../features/devices/platforms/google-health/adapter";
import { oura } from "../features/devices/platforms/oura/adapter";
import type { DevicePlatform } from "../features/devices/platforms/platform";
import { polar } from "../features/devices/platforms/polar/adapter";
import { suunto } from "../features/devices/platforms/suunto/adapter";
import { whoop } from "../features/devices/platforms/whoop/adapter";

export const DEVICE_PLATFORMS: readonly DevicePlatform[] = [oura, whoop, garmin, polar, suunto, googleHealth];
