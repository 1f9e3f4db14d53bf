// Every wearable platform, by spec 2.10 kind: one line each.
import type { DevicePlatform } from "./platform";
import { oura } from "./oura/adapter";
import { whoop } from "./whoop/adapter";
import { garmin } from "./garmin/adapter";
import { polar } from "./polar/adapter";
import { suunto } from "./suunto/adapter";
import { googleHealth } from "./google-health/adapter";

export const devicePlatforms: readonly DevicePlatform[] = [oura, whoop, garmin, polar, suunto, googleHealth];

const byKind = new Map(devicePlatforms.map((p) => [p.kind, p]));

export const platformOf = (kind: string): DevicePlatform | undefined => byKind.get(kind);
export const platformKinds = (): string[] => devicePlatforms.map((p) => p.kind);
