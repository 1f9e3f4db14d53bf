// The registry of device platforms: the spec's eight kinds (2.10) an integration may be set up
// for, and the adapters (from src/device-platform-catalog.ts) a sync fetches through. A kind
// without an adapter (the companion apps, which push readings) can hold credentials but not sync.
import { DEVICE_PLATFORMS } from "../../main/device-platform-catalog";
import type { PlatformAdapter } from "./platform-adapter";

export const PLATFORM_KINDS = ["activity_tracker", "sports_watch", "smart_ring", "recovery_strap", "ios_health_app", "training_platform", "outdoor_watch", "android_health_app"] as const;

const adapters = new Map<string, PlatformAdapter>(DEVICE_PLATFORMS.map((a) => [a.kind, a]));

export const platformAdapter = (kind: string): PlatformAdapter | undefined => adapters.get(kind);

export const isPlatformKind = (kind: string): boolean => (PLATFORM_KINDS as readonly string[]).includes(kind) || adapters.has(kind);

/** For tests and in-process tools that bring an adapter of their own (a stand-in vendor). */
export function registerPlatformAdapter(adapter: PlatformAdapter): void {
  adapters.set(adapter.kind, adapter);
}
