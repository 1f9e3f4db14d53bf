// Google Health API v4 as its discovery document describes it (health/v4/health-api.json in
// googleapis/google-api-go-client, revision 20260416): Google's OAuth token endpoint (client
// secret in the body, PKCE S256, a refresh answered without a new refresh token, RFC 7009 revoke),
// `GET /v4/users/me/identity` → Identity, and `GET /v4/users/me/dataTypes/{type}/dataPoints`
// → ListDataPointsResponse {dataPoints, nextPageToken} with the AIP-160 `filter` the discovery
// document lists per kind of type (400 INVALID_ARGUMENT otherwise), newest first, and pages
// smaller than asked for (AIP-158 allows it), so paging is exercised. Google's webhook sender
// (verification pair and notifications with the subscriber's Authorization) is `googleWebhookHeaders` plus the test's POST.
import { type MockUser, VendorMock } from "./vendor-mock";

export const GOOGLE_ORIGIN = "http://127.0.0.1:7106";

type Point = Record<string, unknown>;

/** The discovery document's filter field per type (ListDataPointsRequest.filter). */
const FILTER_FIELD: Record<string, string> = {
  "heart-rate": "heart_rate.sample_time.physical_time",
  "heart-rate-variability": "heart_rate_variability.sample_time.physical_time",
  "oxygen-saturation": "oxygen_saturation.sample_time.physical_time",
  weight: "weight.sample_time.physical_time",
  steps: "steps.interval.start_time",
  distance: "distance.interval.start_time",
  "daily-resting-heart-rate": "daily_resting_heart_rate.date",
  "daily-heart-rate-variability": "daily_heart_rate_variability.date",
  "daily-oxygen-saturation": "daily_oxygen_saturation.date",
  "daily-respiratory-rate": "daily_respiratory_rate.date",
  sleep: "sleep.interval.end_time",
};

const member = (type: string) => type.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());

/** The value a type's filter compares: an RFC 3339 instant or a YYYY-MM-DD date. */
function filterValue(type: string, point: Point): string {
  const v = point[member(type)] as Record<string, Record<string, unknown>>;
  const field = FILTER_FIELD[type] ?? "";
  if (field.endsWith(".date")) {
    const d = v.date as { year: number; month: number; day: number };
    return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
  }
  if (field.endsWith("sample_time.physical_time")) return String(v.sampleTime?.physicalTime);
  if (field.endsWith("interval.end_time")) return String(v.interval?.endTime);
  return String(v.interval?.startTime);
}

const compare = (type: string, a: string, b: string) => (FILTER_FIELD[type]?.endsWith(".date") ? a.localeCompare(b) : Date.parse(a) - Date.parse(b));

const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });

export interface GoogleHealthMock extends VendorMock {
  /** Data points per Google Health user id and data type. */
  readonly points: Map<string, Map<string, Point[]>>;
  add(user: MockUser, type: string, ...points: Point[]): void;
  /** Filters the mock received, in order. */
  readonly filters: string[];
  /** Data types answering 410 Gone (a retired endpoint). */
  readonly gone: Set<string>;
}

export function googleHealthMock(clientId = "google-client.apps.googleusercontent.com", clientSecret = "google-secret", pageSize = 2): GoogleHealthMock {
  const base = new VendorMock({ origin: GOOGLE_ORIGIN, tokenPath: "/token", revokePath: "/revoke", clientId, clientSecret, clientAuth: "post", rotate: false, refreshOmitsToken: true, expiresIn: 3599, pkce: true });
  const points = new Map<string, Map<string, Point[]>>();
  const filters: string[] = [];
  const gone = new Set<string>();
  const mock = Object.assign(base, {
    points,
    filters,
    gone,
    add(user: MockUser, type: string, ...more: Point[]) {
      const byType = points.get(user.id) ?? new Map<string, Point[]>();
      points.set(user.id, byType);
      byType.set(type, [...(byType.get(type) ?? []), ...more]);
    },
  });
  mock
    .route("GET", /^\/v4\/users\/me\/identity$/, (_req, user) => Response.json({ name: "users/me/identity", healthUserId: user.id, legacyUserId: `FB${user.id.slice(0, 4).toUpperCase()}` }))
    .route("GET", /^\/v4\/users\/me\/dataTypes\/([a-z0-9-]+)\/dataPoints$/, (req, user, m) => {
      const type = m[1] ?? "";
      if (gone.has(type)) return googleError(410, "GONE", "This endpoint is no longer available.");
      const field = FILTER_FIELD[type];
      if (!field) return googleError(400, "INVALID_ARGUMENT", `Unsupported data type: ${type}`);
      const url = new URL(req.url);
      const filter = url.searchParams.get("filter") ?? "";
      filters.push(filter);
      const esc = field.replace(/\./g, "\\.");
      const parsed = new RegExp(`^${esc} >= "([^"]+)" AND ${esc} < "([^"]+)"$`).exec(filter);
      if (!parsed) return googleError(400, "INVALID_ARGUMENT", `Invalid filter for ${type}: ${filter}`);
      const [, from = "", to = ""] = parsed;
      const asked = Number(url.searchParams.get("pageSize") ?? (type === "sleep" ? 25 : 1440));
      if (type === "sleep" && asked > 25) return googleError(400, "INVALID_ARGUMENT", "The maximum page size for sleep is 25");
      const all = (points.get(user.id)?.get(type) ?? [])
        .filter((p) => compare(type, filterValue(type, p), from) >= 0 && compare(type, filterValue(type, p), to) < 0)
        .sort((a, b) => compare(type, filterValue(type, b), filterValue(type, a)));
      const at = Number(url.searchParams.get("pageToken") ?? "0");
      const size = Math.min(asked, pageSize);
      const page = all.slice(at, at + size);
      return Response.json({ dataPoints: page, ...(at + size < all.length ? { nextPageToken: String(at + size) } : {}) });
    });
  return mock;
}

const offset = "3600s";
const plusMin = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
const dateOf = (iso: string) => ({ year: Number(iso.slice(0, 4)), month: Number(iso.slice(5, 7)), day: Number(iso.slice(8, 10)) });

/** Data points in the discovery document's shapes, around `at` (an RFC 3339 instant). */
export const googlePoints = {
  heartRate: (at: string, bpm: number): Point => ({ heartRate: { sampleTime: { physicalTime: at, utcOffset: offset }, beatsPerMinute: String(bpm), metadata: { sensorLocation: "WRIST" } }, dataSource: { platform: "FITBIT", recordingMethod: "PASSIVELY_MEASURED" } }),
  steps: (at: string, count: number): Point => ({ steps: { interval: { startTime: at, startUtcOffset: offset, endTime: plusMin(at, 1), endUtcOffset: offset }, count: String(count) } }),
  distance: (at: string, mm: number): Point => ({ distance: { interval: { startTime: at, startUtcOffset: offset, endTime: plusMin(at, 1), endUtcOffset: offset }, millimeters: String(mm) } }),
  weight: (at: string, grams: number): Point => ({ weight: { sampleTime: { physicalTime: at, utcOffset: offset }, weightGrams: grams } }),
  oxygenSaturation: (at: string, percentage: number): Point => ({ oxygenSaturation: { sampleTime: { physicalTime: at, utcOffset: offset }, percentage } }),
  dailyOxygenSaturation: (at: string, averagePercentage: number): Point => ({ dailyOxygenSaturation: { date: dateOf(at), averagePercentage, lowerBoundPercentage: averagePercentage - 2, upperBoundPercentage: averagePercentage + 1 } }),
  dailyRestingHeartRate: (at: string, bpm: number): Point => ({ dailyRestingHeartRate: { date: dateOf(at), beatsPerMinute: String(bpm), dailyRestingHeartRateMetadata: { calculationMethod: "WITH_SLEEP" } } }),
  dailyHeartRateVariability: (at: string, ms: number): Point => ({ dailyHeartRateVariability: { date: dateOf(at), averageHeartRateVariabilityMilliseconds: ms, deepSleepRootMeanSquareOfSuccessiveDifferencesMilliseconds: ms + 5 } }),
  heartRateVariability: (at: string, rmssd: number, sdnn: number): Point => ({ heartRateVariability: { sampleTime: { physicalTime: at, utcOffset: offset }, rootMeanSquareOfSuccessiveDifferencesMilliseconds: rmssd, standardDeviationMilliseconds: sdnn } }),
  dailyRespiratoryRate: (at: string, breathsPerMinute: number): Point => ({ dailyRespiratoryRate: { date: dateOf(at), breathsPerMinute } }),
  sleep: (user: MockUser, id: string, start: string, minutes: { light: number; deep: number; rem: number; awake: number }): Point => {
    const total = minutes.light + minutes.deep + minutes.rem + minutes.awake;
    return {
      name: `users/${user.id}/dataTypes/sleep/dataPoints/${id}`,
      sleep: {
        interval: { startTime: start, startUtcOffset: offset, endTime: plusMin(start, total), endUtcOffset: offset },
        type: "STAGES",
        metadata: { processed: true, nap: false, stagesStatus: "SUCCEEDED" },
        summary: {
          minutesAsleep: String(minutes.light + minutes.deep + minutes.rem),
          minutesAwake: String(minutes.awake),
          minutesInSleepPeriod: String(total),
          stagesSummary: [
            { type: "LIGHT", minutes: String(minutes.light), count: "12" },
            { type: "DEEP", minutes: String(minutes.deep), count: "4" },
            { type: "REM", minutes: String(minutes.rem), count: "5" },
            { type: "AWAKE", minutes: String(minutes.awake), count: "9" },
          ],
        },
      },
    };
  },
};

/** Google's webhook POST as its subscriber documentation describes it: JSON, the subscriber's Authorization when given. */
export function googleWebhookHeaders(authorization?: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json", ...(authorization !== undefined ? { authorization } : {}), ...extra };
}
