// The device platforms a deployment has, by kind. src/main/plugins.ts lists them
// and src/main/ hands the registry down (each org context's `devicePlatforms`, the public webhook
// route, the subscription renewal cron); nothing here registers anything.
//
// Where devices live, in src/features/devices/:
//   the device core          readings as Observations (observation.ts, use-cases/ingest.ts), vitals,
//                            timeline, device links and integrations (store/, use-cases/, routes/),
//                            manual syncs (use-cases/sync.ts, the DeviceSync DO), the device nodes,
//                            platform-adapter.ts (what a sync fetches through) and
//                            platform-services.ts (the core's side of the seams below)
//   platforms/               where the readings come from:
//     <vendor>/              one folder per platform: apple-health, garmin, google-health,
//                            health-connect, oura, polar, suunto, whoop (its adapter, mapping, webhooks)
//     platform.ts            the contract a vendor implements (DevicePlatform)
//     registry.ts            this file
//     services.ts            the device core's seams the platforms work through (credentials, ingest...)
//     readings.ts            helpers every vendor uses: readings from vendor values (readings.ts),
//     vendor-http.ts         vendor calls and their failures as PlatformErrors (vendor-http.ts)
//     oauth/                 linking a patient's account: authorization, tokens, backfill, sync calls
//     webhooks/              vendor deliveries: receipt, the queue consumer, subscribers, renewal
//     companion/             the companion apps' upload tokens and uploads (Apple Health, Health Connect)
//     routes.ts schemas.ts   the /api/v1/device-platforms and webhook endpoints
import type { Env } from "../../../platform/env";
import type { DevicePlatform } from "./platform";

/** The spec's eight kinds (2.10) an integration may be set up for. */
export const PLATFORM_KINDS = ["activity_tracker", "sports_watch", "smart_ring", "recovery_strap", "ios_health_app", "training_platform", "outdoor_watch", "android_health_app"] as const;

export interface DevicePlatforms {
  /** Every platform, in the catalog's order. */
  readonly all: readonly DevicePlatform[];
  /**
   * The platform of `kind` (a sync's adapter, its OAuth, webhooks and subscribers), or undefined: a
   * kind without one (the companion apps, which push readings) can hold credentials but not sync.
   */
  of(kind: string): DevicePlatform | undefined;
  /** Whether an integration may be set up for `kind`: one of the spec's kinds, or a platform's. */
  isKind(kind: string): boolean;
}

/** How a deployment's platforms are found from its `env` (src/main/device-platform-services.ts). */
export type DevicePlatformsOf = (env: Env) => DevicePlatforms;

export function devicePlatformRegistry(platforms: readonly DevicePlatform[]): DevicePlatforms {
  const byKind = new Map(platforms.map((p) => [p.kind, p]));
  return {
    all: platforms,
    of: (kind) => byKind.get(kind),
    isKind: (kind) => (PLATFORM_KINDS as readonly string[]).includes(kind) || byKind.has(kind),
  };
}

/** Sources a device's readings may come from besides the kinds: posted readings and MQTT messages. */
export const PUSH_SOURCES = ["mqtt", "manual"] as const;

/** What a client needs to know of a platform: above all whether a manual sync can pull from it. */
export interface PlatformDescriptor {
  readonly kind: string;
  readonly vendor: string | null;
  /** A sync fetches from the platform (Garmin's asks it to push the window again); false: readings only arrive (companion apps, MQTT, posted). */
  readonly pulls: boolean;
  /** A patient's account is linked through the platform's OAuth consent. */
  readonly oauth: boolean;
  readonly dataTypes: readonly string[];
  readonly maxSyncDays: number | null;
}

/** Every platform of the deployment, then the spec's kinds and the push sources without one. */
export function platformCatalog(platforms: DevicePlatforms): PlatformDescriptor[] {
  const pulling: PlatformDescriptor[] = platforms.all.map((p) => ({ kind: p.kind, vendor: p.vendor, pulls: true, oauth: p.oauth !== undefined, dataTypes: p.dataTypes, maxSyncDays: p.maxSyncDays }));
  const known = new Set(pulling.map((p) => p.kind));
  const pushing = [...PLATFORM_KINDS, ...PUSH_SOURCES]
    .filter((kind) => !known.has(kind))
    .map((kind): PlatformDescriptor => ({ kind, vendor: null, pulls: false, oauth: false, dataTypes: [], maxSyncDays: null }));
  return [...pulling, ...pushing];
}
