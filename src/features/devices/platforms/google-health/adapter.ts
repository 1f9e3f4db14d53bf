// Google Health API v4 (activity tracker; the Fitbit Web API's successor): Google's OAuth 2.0
// with PKCE and offline access (refresh token), revoke on unlink, the user's Google Health id
// from `users/me/identity`, and `users/me/dataTypes/{type}/dataPoints` lists with AIP-160 time
// filters and `pageToken` paging for sync and backfill, or `dataPoints:rollUp` windows
// (rollup.ts) when the sync or the org's settings ask for a 1/5/15-minute resolution.
// Webhooks: notifications.ts.
import { type FetchedPage, type FetchRange, type LinkedDevice, PlatformError, type PlatformCall, type PlatformCredentials } from "../../platform-adapter";
import type { Reading } from "../../reading";
import { type DevicePlatform, type PlatformEvent, urlOf } from "../platform";
import { vendorJson, withQuery } from "../vendor-http";
import { GOOGLE_HEALTH_KIND, googleHealthMappers, mapGoogleHealth } from "./mapping";
import { googleEvents, googleHandshake, googleVerify } from "./notifications";
import { ROLLUP_FIELDS, ROLLUP_WINDOWS, rollUpPage } from "./rollup";
import { googleSubscriber, subscribeUser, unsubscribeUser } from "./subscriber";

const API = "https://health.googleapis.com";
const api = (c: PlatformCredentials) => urlOf(c, "api_base_url", API);
const dataTypes = Object.keys(googleHealthMappers);

/** How the list filter names a type's time (discovery document, ListDataPointsRequest.filter). */
type TimeField = "interval" | "sample" | "daily" | "sleep" | "session";
const TIME_FIELD: Readonly<Record<string, TimeField>> = {
  "heart-rate": "sample",
  "heart-rate-variability": "sample",
  "oxygen-saturation": "sample",
  weight: "sample",
  steps: "interval",
  distance: "interval",
  "daily-resting-heart-rate": "daily",
  "daily-heart-rate-variability": "daily",
  "daily-oxygen-saturation": "daily",
  "daily-respiratory-rate": "daily",
  sleep: "sleep",
  "body-fat": "sample",
  height: "sample",
  "core-body-temperature": "sample",
  "blood-glucose": "sample",
  "active-energy-burned": "interval",
  floors: "interval",
  altitude: "interval",
  exercise: "session",
};

/** Every type Google can roll up (RollupDataPoint's members) is offered at each of our windows. */
const resolutions = Object.fromEntries(dataTypes.filter((t) => Object.hasOwn(ROLLUP_FIELDS, t)).map((t) => [t, Object.keys(ROLLUP_WINDOWS)]));

/** The resolution a fetch uses: the sync's, else the org's `resolution.<type>` setting, else raw. */
const resolutionOf = (call: PlatformCall, dataType: string, asked: string | undefined) => asked ?? call.credentials.extra?.[`resolution.${dataType}`] ?? "raw";

/** The AIP-160 filter for [from, to): `{type}.interval.start_time`, `.sample_time.physical_time`, `.date`, or sleep's `interval.end_time`. */
export function rangeFilter(dataType: string, from: string, to: string): string {
  const name = dataType.replace(/-/g, "_");
  const iso = (t: string) => new Date(t).toISOString();
  switch (TIME_FIELD[dataType]) {
    case "daily":
      // Days are the user's civil dates: the day holding `to` is included.
      return `${name}.date >= "${iso(from).slice(0, 10)}" AND ${name}.date < "${new Date(Date.parse(iso(to).slice(0, 10)) + 86_400_000).toISOString().slice(0, 10)}"`;
    case "sample":
      return `${name}.sample_time.physical_time >= "${iso(from)}" AND ${name}.sample_time.physical_time < "${iso(to)}"`;
    case "sleep":
      return `sleep.interval.end_time >= "${iso(from)}" AND sleep.interval.end_time < "${iso(to)}"`;
    case "session": {
      // Sessions filter on civil (the user's local) start time only: a day either side covers every offset; re-reads are idempotent.
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      return `${name}.interval.civil_start_time >= "${day(Date.parse(iso(from)) - 86_400_000)}" AND ${name}.interval.civil_start_time < "${day(Date.parse(iso(to)) + 2 * 86_400_000)}"`;
    }
    default:
      return `${name}.interval.start_time >= "${iso(from)}" AND ${name}.interval.start_time < "${iso(to)}"`;
  }
}

/** Sleep and exercise pages hold at most 25; others up to 10,000 (fewest calls against the 300/min per-user quota). */
const pageSizeOf = (dataType: string) => (dataType === "sleep" || dataType === "exercise" ? 25 : 10_000);

/** A notification's incremental sync looks this far back and reads at most this many pages per type. */
export const INCREMENTAL_HOURS = 48;
export const INCREMENTAL_MAX_PAGES = 10;

interface ListPage {
  readonly dataPoints?: unknown[];
  readonly nextPageToken?: string;
}

async function listPage(call: PlatformCall, device: LinkedDevice, range: FetchRange): Promise<FetchedPage> {
  if (!Object.hasOwn(TIME_FIELD, range.dataType)) throw new PlatformError("invalid", `unknown Google Health data type ${range.dataType}`);
  const resolution = resolutionOf(call, range.dataType, range.resolution);
  if (resolution !== "raw") return rollUpPage(call, api(call.credentials), device, { ...range, resolution });
  const url = withQuery(`${api(call.credentials)}/v4/users/me/dataTypes/${range.dataType}/dataPoints`, {
    filter: rangeFilter(range.dataType, range.from, range.to),
    pageSize: pageSizeOf(range.dataType),
    pageToken: range.cursor,
  });
  const page = await vendorJson<ListPage>(call, url);
  return {
    readings: (page.dataPoints ?? []).flatMap((p) => mapGoogleHealth(device, range.dataType, p)),
    ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}),
  };
}

export const googleHealth: DevicePlatform = {
  kind: GOOGLE_HEALTH_KIND,
  vendor: "Google Health API",
  dataTypes,
  resolutions,
  // The list endpoint sets no limit of its own; the device core's 365-day ceiling applies.
  maxSyncDays: 365,
  oauth: {
    authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    revokeUrl: "https://oauth2.googleapis.com/revoke",
    scopes: [
      "https://www.googleapis.com/auth/googlehealth.activity_and_fitness.readonly",
      "https://www.googleapis.com/auth/googlehealth.health_metrics_and_measurements.readonly",
      "https://www.googleapis.com/auth/googlehealth.sleep.readonly",
    ],
    pkce: true,
    clientAuth: "post",
    // A refresh token is only issued for offline access; `consent` makes Google issue one again when a device is re-linked.
    extraAuthorizeParams: { access_type: "offline", prompt: "consent" },
  },
  webhook: {
    handshake: googleHandshake,
    verify: googleVerify,
    events: (body) => googleEvents(body, dataTypes),
  },
  subscriber: googleSubscriber,
  afterLink: (call, device, orgId) => subscribeUser(call, orgId, device.platformUserId),
  // Best effort: revoking the grant (next) stops Google's notifications for the user anyway.
  beforeUnlink: (call, device, orgId) => unsubscribeUser(call, orgId, device.platformUserId).catch(() => undefined),
  async platformUserId(call: PlatformCall) {
    const identity = await vendorJson<{ healthUserId?: string }>(call, `${api(call.credentials)}/v4/users/me/identity`);
    if (!identity.healthUserId) throw new PlatformError("invalid", "users/me/identity answered no healthUserId");
    return identity.healthUserId;
  },
  /** A notification: the last INCREMENTAL_HOURS of its data type, page by page (bounded). */
  async handleEvent(call, device, event: PlatformEvent) {
    const to = new Date();
    const from = new Date(to.getTime() - INCREMENTAL_HOURS * 3_600_000);
    const readings: Reading[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < INCREMENTAL_MAX_PAGES; page++) {
      const got = await listPage(call, device, { dataType: event.dataType, from: from.toISOString(), to: to.toISOString(), ...(cursor ? { cursor } : {}) });
      readings.push(...got.readings);
      cursor = got.nextCursor;
      if (!cursor) break;
    }
    return { readings, deletedRecordIds: [] };
  },
  fetchPage: listPage,
};
