// What a wearable platform adds to the device core's PlatformAdapter: its OAuth endpoints,
// its webhook scheme (verification, handshake, events) and how one event becomes readings.
// A ninth platform is one folder implementing this and one line in src/main/plugins.ts.
import type { LinkedDevice, PlatformAdapter, PlatformCall, PlatformCredentials } from "../platform-adapter";
import type { Reading } from "../reading";

export interface OAuthSpec {
  /** Default endpoints; each can be overridden per org (`extra.authorize_url`, `extra.token_url`, `extra.revoke_url`). */
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly revokeUrl?: string;
  readonly scopes: readonly string[];
  readonly pkce: boolean;
  /** How the client authenticates at the token endpoint. */
  readonly clientAuth: "basic" | "post";
  /** Whether `redirect_uri` is sent to the token endpoint (Polar: only if sent at authorize; we always send it there). */
  readonly extraAuthorizeParams?: Readonly<Record<string, string>>;
}

/** A webhook delivery as received: the raw body, never re-serialised, is what signatures cover. */
export interface WebhookDelivery {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string;
  readonly receivedAt: Date;
}

export type Verification = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** One thing a vendor told us about one user. */
export interface PlatformEvent {
  /** The vendor's user id (Suunto: the username), which the link table maps to our device. */
  readonly platformUserId: string;
  readonly action: "upsert" | "delete" | "deregister" | "permissions";
  readonly dataType: string;
  /** The vendor's record id, for fetch-by-id or a delete. */
  readonly objectId?: string;
  /** Data delivered inline (Garmin push, Suunto). */
  readonly inline?: unknown;
  /** A URL the vendor says to fetch (Polar, Garmin ping callbackURL), called unchanged. */
  readonly url?: string;
  /** A day or interval the vendor says changed (Google Health), for a range fetch. */
  readonly range?: { readonly from: string; readonly to: string };
}

export interface WebhookSpec {
  /**
   * A vendor handshake (Oura GET challenge, Polar PING, Google verification) answered here;
   * `undefined` when the delivery is not one. Runs before `verify` only for handshakes that
   * the vendor does not sign (each platform decides).
   */
  handshake?(delivery: WebhookDelivery, credentials: PlatformCredentials): Promise<Response | undefined>;
  /** Signature over the raw body, in constant time; nothing else may run before it succeeds. */
  verify(delivery: WebhookDelivery, credentials: PlatformCredentials): Promise<Verification>;
  /** The events a verified body names; unknown event types are left out (answered 200 `ignored`, recorded as `no_readings`). */
  events(body: unknown): readonly PlatformEvent[];
  /** The acknowledgement status the vendor expects (200 unless it says otherwise). */
  readonly ackStatus?: 200 | 204;
}

/** What one event turned into. */
export interface EventOutcome {
  readonly readings: readonly Reading[];
  /** Source record ids whose readings must be removed or marked entered-in-error (one vendor record may have several: WHOOP's score states). */
  readonly deletedRecordIds: readonly string[];
  /** The user withdrew consent or was deregistered: the link goes inactive and syncs stop. */
  readonly linkInactive?: string;
  /** Why the event gave nothing (the vendor's data not in a shape the mapping reads, a URL not fetched): the delivery's reason. */
  readonly note?: string;
}

/** What a subscription renewal did (the app's vendor-side webhook subscriptions). */
export interface SubscriptionRenewal {
  readonly checked: number;
  readonly renewed: readonly { readonly id: string; readonly expiresAt?: string }[];
  readonly failed: readonly { readonly id: string; readonly reason: string }[];
}

/** Where the org's webhook endpoint is and the secret the vendor must present there. */
export interface SubscriberTarget {
  readonly orgId: string;
  readonly endpointUri: string;
}

/** The vendor-side registration of the org's webhook endpoint, as the vendor reports it. */
export interface SubscriberState {
  /** The vendor's name for it (Google: projects/{project}/subscribers/{id}). */
  readonly name: string;
  /** The vendor's state (Google: UNVERIFIED, ACTIVE, INACTIVE), or PENDING while its operation runs. */
  readonly state: string;
  readonly endpointUri?: string;
  readonly dataTypes: readonly string[];
  readonly secretSet?: boolean;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  /** When the registration lapses unless renewed (Oura: the earliest of its subscriptions). */
  readonly expiresAt?: string;
  /** Vendors that register per data and event type (Oura): each vendor-side subscription. */
  readonly subscriptions?: readonly { readonly id: string; readonly dataType: string; readonly eventType: string; readonly expiresAt?: string }[];
}

/**
 * Vendors whose webhook endpoint the app registers itself with app-level credentials (Google
 * Health's projects.subscribers with a service account, Oura's webhook subscriptions, Polar's
 * webhook): register or update it, report it, remove it.
 */
export interface SubscriberSpec {
  /**
   * Create the registration, or update it to `target` when it exists; `created` says which.
   * `issuedCredentials`: secrets the vendor issued that the org's integration must keep (Polar's
   * `signature_secret_key`, returned once), never shown to the caller.
   */
  put(call: PlatformCall, target: SubscriberTarget): Promise<SubscriberState & { readonly created: boolean; readonly issuedCredentials?: Readonly<Record<string, string>> }>;
  /** The registration, or undefined when the vendor has none for this org. */
  get(call: PlatformCall, target: SubscriberTarget): Promise<SubscriberState | undefined>;
  /** Remove it; false when there was none. */
  remove(call: PlatformCall, target: SubscriberTarget): Promise<boolean>;
}

export interface DevicePlatform extends PlatformAdapter {
  /** The vendor's product name, for documentation and logs. */
  readonly vendor: string;
  readonly oauth?: OAuthSpec;
  readonly webhook?: WebhookSpec;
  readonly subscriber?: SubscriberSpec;
  /** The vendor's id for the user who just linked (after the code exchange). */
  platformUserId?(call: PlatformCall, tokenResponse: Readonly<Record<string, unknown>>): Promise<string>;
  /** Work done once after linking (Polar's user registration, Google Health's per-user subscription). */
  afterLink?(call: PlatformCall, device: LinkedDevice, orgId: string): Promise<void>;
  /** Work done before revoking tokens on unlink (Garmin deregistration, Polar user delete). */
  beforeUnlink?(call: PlatformCall, device: LinkedDevice, orgId: string): Promise<void>;
  /** Push platforms (Garmin): ask the vendor to push a window again; "duplicate" when already asked for it. */
  backfill?(call: PlatformCall, dataType: string, from: string, to: string): Promise<"accepted" | "duplicate">;
  /** Vendors whose webhook subscriptions expire (Oura): renew those close to expiry (the hourly cron). */
  renewSubscriptions?(call: PlatformCall, now: Date): Promise<SubscriptionRenewal>;
  /** One verified event for one linked device → readings (fetching by id or URL when notify-only). */
  handleEvent(call: PlatformCall, device: LinkedDevice, event: PlatformEvent): Promise<EventOutcome>;
}

/** A configurable URL: the org's override in `extra[name]`, else the vendor default. */
export function urlOf(credentials: PlatformCredentials, name: string, fallback: string): string {
  const value = credentials.extra?.[name];
  return value && Object.hasOwn(credentials.extra ?? {}, name) ? value : fallback;
}

export const noOutcome: EventOutcome = Object.freeze({ readings: [], deletedRecordIds: [] });
