// The seams from the platforms to the device core, which owns the org's platform client
// credentials (device integrations), the device links' Active/inactive status and turning
// readings into Observations. The device core implements them (../platform-services.ts); src/main/
// decides which implementation a deployment uses (a service profile may replace it) and hands it
// down as each org context's `platformServices`.
import type { PlatformCredentials } from "../platform-adapter";
import type { Reading } from "../reading";
import type { Env } from "../../../platform/env";
import type { OrgContext } from "../../../platform/org-context";

export interface PlatformServices {
  /** The org's decrypted client credentials for the platform `kind`, or undefined when not configured. */
  credentialsFor(ctx: OrgContext, kind: string): Promise<PlatformCredentials | undefined>;
  /** Merges vendor-issued secrets into the org's integration for `kind` (sealed like the others). */
  keepCredentials(ctx: OrgContext, kind: string, credentials: Readonly<Record<string, string>>): Promise<void>;
  /** The device core marks the device Active or inactive (with the reason, e.g. "revoked"). */
  linkStatus(ctx: OrgContext, deviceId: string, status: "active" | "inactive", reason?: string): Promise<void>;
  /**
   * Readings to store (the device core's `ingestReadings`: Observations, dedup, alerts) and vendor
   * records to remove; each reading's outcome, in order (a refused one with its errors). `outcomes`,
   * when given, is filled in place as readings are stored: after a throw it holds what was stored.
   */
  ingest(
    ctx: OrgContext,
    kind: string,
    readings: readonly Reading[],
    deletedRecordIds: readonly { deviceId: string; sourceRecordId: string }[],
    outcomes?: StoreResult[],
  ): Promise<readonly StoreResult[]>;
  /** The outbound-guarded fetch every vendor call goes through. */
  fetch(env: Env): typeof globalThis.fetch;
  /** A device link as the device core holds it (companion uploads: whose device a token names), or undefined. */
  device(ctx: OrgContext, deviceId: string): Promise<DeviceLinkView | undefined>;
  /** Readings stored with each one's outcome, in order (companion uploads answer per item). */
  store(ctx: OrgContext, kind: string, readings: readonly Reading[]): Promise<StoreResult[]>;
  /**
   * Observations the source withdrew (a companion record replaced by a newer version): marked
   * entered-in-error, out of the vitals; those whose reading identifier is in `keep` stay (the new
   * version re-sends that reading: it updates the Observation instead).
   */
  retract(ctx: OrgContext, kind: string, observationIds: readonly string[], keep?: readonly string[]): Promise<number>;
  /** The device core's sync log for a long import: opened queued, then written as it goes. */
  openSyncLog(ctx: OrgContext, entry: { deviceId: string; from: string; to: string; requestedBy: string; progress: Record<string, unknown> }): Promise<string>;
  writeSyncLog(ctx: OrgContext, id: string, patch: { state: "running" | "completed" | "failed"; progress: Record<string, unknown>; startedAt?: string; finishedAt?: string }): Promise<void>;
}

export interface DeviceLinkView {
  readonly deviceId: string;
  readonly patientId: string;
  readonly platform: string;
  readonly status: string;
}

export interface StoreResult {
  readonly observationId?: string;
  readonly duplicate: boolean;
  /** The reading changed its existing Observation (a new version). */
  readonly updated?: boolean;
  readonly errors?: readonly { readonly path: string; readonly message: string }[];
}
