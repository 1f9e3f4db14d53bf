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
  "body-fat": "body_fat.sample_time.physical_time",
  "core-body-temperature": "core_body_temperature.sample_time.physical_time",
  height: "height.sample_time.physical_time",
  "blood-glucose": "blood_glucose.sample_time.physical_time",
  "active-energy-burned": "active_energy_burned.interval.start_time",
  floors: "floors.interval.start_time",
  altitude: "altitude.interval.start_time",
  exercise: "exercise.interval.civil_start_time",
};

/** RollupDataPoint members per type as Google aggregates them: [field, how, source field]. */
const ROLLUPS: Record<string, [string, "avg" | "min" | "max" | "sum", string][]> = {
  "heart-rate": [
    ["beatsPerMinuteAvg", "avg", "beatsPerMinute"],
    ["beatsPerMinuteMin", "min", "beatsPerMinute"],
    ["beatsPerMinuteMax", "max", "beatsPerMinute"],
  ],
  steps: [["countSum", "sum", "count"]],
  distance: [["millimetersSum", "sum", "millimeters"]],
  weight: [["weightGramsAvg", "avg", "weightGrams"]],
  floors: [["countSum", "sum", "count"]],
};
/** int64 sums are strings in Google's JSON; doubles are numbers. */
const INT64_SUMS = new Set(["countSum", "millimetersSum"]);

const member = (type: string) => type.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());

/** A point's physical instant (its sample time or its interval's start), epoch ms. */
function instantOf(type: string, point: Point): number {
  const v = point[member(type)] as Record<string, Record<string, unknown>>;
  return Date.parse(String(v.sampleTime?.physicalTime ?? v.interval?.startTime));
}

/** The value a type's filter compares: an RFC 3339 instant or a YYYY-MM-DD date. */
function filterValue(type: string, point: Point): string {
  const v = point[member(type)] as Record<string, Record<string, unknown>>;
  const field = FILTER_FIELD[type] ?? "";
  if (field.endsWith("civil_start_time")) return String(v.interval?.startTime).slice(0, 10);
  if (field.endsWith(".date")) {
    const d = v.date as { year: number; month: number; day: number };
    return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
  }
  if (field.endsWith("sample_time.physical_time")) return String(v.sampleTime?.physicalTime);
  if (field.endsWith("interval.end_time")) return String(v.interval?.endTime);
  return String(v.interval?.startTime);
}

const compare = (type: string, a: string, b: string) => (/\.date$|civil_start_time$/.test(FILTER_FIELD[type] ?? "") ? a.localeCompare(b) : Date.parse(a) - Date.parse(b));

const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });

export interface GoogleHealthMock extends VendorMock {
  /** Data points per Google Health user id and data type. */
  readonly points: Map<string, Map<string, Point[]>>;
  add(user: MockUser, type: string, ...points: Point[]): void;
  /** Filters the mock received, in order. */
  readonly filters: string[];
  /** Data types answering 410 Gone (a retired endpoint). */
  readonly gone: Set<string>;
  /** RollUpDataPointsRequest bodies the mock received, with the type. */
  readonly rollUps: { type: string; body: Record<string, unknown> }[];
}

export function googleHealthMock(clientId = "google-client.apps.googleusercontent.com", clientSecret = "google-secret", pageSize = 2): GoogleHealthMock {
  const base = new VendorMock({ origin: GOOGLE_ORIGIN, tokenPath: "/token", revokePath: "/revoke", clientId, clientSecret, clientAuth: "post", rotate: false, refreshOmitsToken: true, expiresIn: 3599, pkce: true });
  const points = new Map<string, Map<string, Point[]>>();
  const filters: string[] = [];
  const gone = new Set<string>();
  const rollUps: { type: string; body: Record<string, unknown> }[] = [];
  const mock = Object.assign(base, {
    points,
    filters,
    gone,
    rollUps,
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
      const session = type === "sleep" || type === "exercise";
      const asked = Number(url.searchParams.get("pageSize") ?? (session ? 25 : 1440));
      if (session && asked > 25) return googleError(400, "INVALID_ARGUMENT", `The maximum page size for ${type} is 25`);
      const all = (points.get(user.id)?.get(type) ?? [])
        .filter((p) => compare(type, filterValue(type, p), from) >= 0 && compare(type, filterValue(type, p), to) < 0)
        .sort((a, b) => compare(type, filterValue(type, b), filterValue(type, a)));
      const at = Number(url.searchParams.get("pageToken") ?? "0");
      const size = Math.min(asked, pageSize);
      const page = all.slice(at, at + size);
      return Response.json({ dataPoints: page, ...(at + size < all.length ? { nextPageToken: String(at + size) } : {}) });
    })
    // RollUpDataPointsRequest → RollUpDataPointsResponse: the user's points grouped into windows of
    // `windowSize` from `range.startTime`, aggregated as RollupDataPoint's member for the type.
    .route("POST", /^\/v4\/users\/me\/dataTypes\/([a-z0-9-]+)\/dataPoints:rollUp$/, async (req, user, m) => {
      const type = m[1] ?? "";
      const fields = ROLLUPS[type];
      if (!fields) return googleError(400, "INVALID_ARGUMENT", `Data type ${type} does not support rollups`);
      const body = (await req.json()) as { range?: { startTime?: string; endTime?: string }; windowSize?: string; pageSize?: number; pageToken?: string };
      rollUps.push({ type, body: body as Record<string, unknown> });
      const start = Date.parse(body.range?.startTime ?? "");
      const end = Date.parse(body.range?.endTime ?? "");
      const window = /^(\d+)s$/.exec(body.windowSize ?? "")?.[1];
      if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return googleError(400, "INVALID_ARGUMENT", "range must have startTime before endTime");
      if (!window || Number(window) <= 0) return googleError(400, "INVALID_ARGUMENT", "windowSize is required");
      const maxDays = type === "heart-rate" ? 14 : 90;
      if (end - start > maxDays * 86_400_000) return googleError(400, "INVALID_ARGUMENT", `The maximum range for ${type} is ${maxDays} days`);
      const windowMs = Number(window) * 1000;
      const groups = new Map<number, Record<string, unknown>[]>();
      for (const p of points.get(user.id)?.get(type) ?? []) {
        const t = instantOf(type, p);
        if (t < start || t >= end) continue;
        const w = start + Math.floor((t - start) / windowMs) * windowMs;
        groups.set(w, [...(groups.get(w) ?? []), p[member(type)] as Record<string, unknown>]);
      }
      const windows = [...groups.entries()].sort(([a], [b]) => a - b).map(([w, values]) => {
        const aggregate = Object.fromEntries(
          fields.map(([name, how, source]) => {
            const xs = values.map((v) => Number(v[source]));
            const r = how === "sum" ? xs.reduce((a, b) => a + b, 0) : how === "min" ? Math.min(...xs) : how === "max" ? Math.max(...xs) : xs.reduce((a, b) => a + b, 0) / xs.length;
            return [name, INT64_SUMS.has(name) ? String(r) : r];
          }),
        );
        return { startTime: new Date(w).toISOString(), endTime: new Date(w + windowMs).toISOString(), [member(type)]: aggregate };
      });
      const at = Number(body.pageToken ?? "0");
      const size = Math.min(body.pageSize ?? 1440, pageSize);
      return Response.json({ rollupDataPoints: windows.slice(at, at + size), ...(at + size < windows.length ? { nextPageToken: String(at + size) } : {}) });
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
  bodyFat: (at: string, percentage: number): Point => ({ bodyFat: { sampleTime: { physicalTime: at, utcOffset: offset }, percentage } }),
  coreBodyTemperature: (at: string, temperatureCelsius: number): Point => ({ coreBodyTemperature: { sampleTime: { physicalTime: at, utcOffset: offset }, temperatureCelsius, measurementLocation: "WRIST" } }),
  floors: (at: string, count: number): Point => ({ floors: { interval: { startTime: at, startUtcOffset: offset, endTime: plusMin(at, 1), endUtcOffset: offset }, count: String(count) } }),
  altitude: (at: string, mm: number): Point => ({ altitude: { interval: { startTime: at, startUtcOffset: offset, endTime: plusMin(at, 1), endUtcOffset: offset }, gainMillimeters: String(mm) } }),
  exercise: (user: MockUser, id: string, start: string, minutes: number, summary: Record<string, unknown>): Point => ({
    name: `users/${user.id}/dataTypes/exercise/dataPoints/${id}`,
    exercise: { interval: { startTime: start, startUtcOffset: offset, endTime: plusMin(start, minutes), endUtcOffset: offset }, exerciseType: "RUNNING", displayName: "Run", activeDuration: `${minutes * 60}s`, metricsSummary: summary },
  }),
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
