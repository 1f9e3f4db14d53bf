// What a device platform (a wearable vendor, a companion-app upload, MQTT) must say about
// itself; everything else (credentials at rest, sync logs, Observations, alerts) is the device
// feature's. A new platform is one folder implementing this and one line in the catalog.
import type { Reading } from "./reading";

export interface PlatformTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** ISO instant the access token expires. */
  readonly expiresAt?: string;
  readonly scope?: string;
}

/** The org's client credentials for the platform, decrypted for the call only. */
export interface PlatformCredentials {
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Vendor extras (webhook signing secret, subscription key, base URL overrides). */
  readonly extra?: Readonly<Record<string, string>>;
}

/** One linked device: who it is on the platform and how to reach them. */
export interface LinkedDevice {
  readonly deviceId: string;
  readonly patientId: string;
  readonly platformUserId?: string;
}

export interface FetchRange {
  readonly dataType: string;
  readonly from: string;
  readonly to: string;
  /** The vendor's paging cursor from the previous page, if any. */
  readonly cursor?: string;
  /** A resolution the platform offers for the type (`resolutions`); absent: the org's default, else raw samples. */
  readonly resolution?: string;
}

export interface FetchedPage {
  readonly readings: readonly Reading[];
  readonly nextCursor?: string;
  /** Records the vendor sent that were not readings (and why), for the sync log. */
  readonly skipped?: readonly { readonly sourceRecordId: string; readonly reason: string }[];
}

/** What a platform call gets: the org's credentials and the device's tokens, and the outbound-guarded fetch. */
export interface PlatformCall {
  readonly credentials: PlatformCredentials;
  readonly tokens?: PlatformTokens;
  readonly fetch: typeof fetch;
}

/**
 * A platform failure the sync log reports by kind: `rate_limited` (retry after), `unauthorized`
 * (refresh, then inactive), `revoked` (the user withdrew consent: link inactive, syncs stop),
 * `unavailable` (retry: refused, timed out, 5xx), `unreachable` (the vendor's host name does not
 * resolve: a configuration to fix, not retried by a sync), `invalid` (the vendor sent something we
 * cannot read). The message names the cause (vendor-fetch.ts).
 */
export class PlatformError extends Error {
  constructor(
    readonly kind: "rate_limited" | "unauthorized" | "revoked" | "unavailable" | "unreachable" | "invalid",
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface PlatformAdapter {
  /** Spec 2.10 kind, e.g. "smart_ring". */
  readonly kind: string;
  /** The data types a sync may ask for. */
  readonly dataTypes: readonly string[];
  /** How far back the platform lets a sync reach, in days. */
  readonly maxSyncDays: number;
  /**
   * Per data type, the aggregation windows the vendor can roll samples up into (e.g. "5m"), besides
   * "raw" (the samples as recorded), which every type has. A sync may ask for one per type; an
   * organization sets its default in the integration's settings as `resolution.<data type>`.
   */
  readonly resolutions?: Readonly<Record<string, readonly string[]>>;
  /** One page of one data type for a linked device; throws PlatformError for what the sync log must name. */
  fetchPage(call: PlatformCall, device: LinkedDevice, range: FetchRange): Promise<FetchedPage>;
}
