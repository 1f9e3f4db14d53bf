// WHOOP API v2 as documented (reference 1.4): token endpoint with body credentials and rotating
// refresh tokens (the `offline` scope), profile, sleep and workout by UUID, recovery by cycle,
// sleep/workout/recovery collections by start and end, cycle pages with `next_token` (limit ≤ 25), DELETE /v2/user/access, 429 with X-RateLimit-* headers, and
// a webhook sender signing X-WHOOP-Signature = base64 HMAC-SHA256(secret, timestamp ms + body).
import { createHmac } from "node:crypto";
import cycles from "../../fixtures/wearables/whoop-cycles.json";
import recovery from "../../fixtures/wearables/whoop-recovery.json";
import { type MockUser, VendorMock } from "./vendor-mock";

export const WHOOP_ORIGIN = "http://127.0.0.1:7102";
export const SLEEP_ID = "123e4567-e89b-12d3-a456-426614174000";

export const whoopSleep = {
  id: SLEEP_ID,
  cycle_id: 93845,
  user_id: 10129,
  created_at: "2022-04-24T11:25:44.774Z",
  updated_at: "2022-04-24T14:25:44.774Z",
  start: "2022-04-24T02:25:44.774Z",
  end: "2022-04-24T10:25:44.774Z",
  timezone_offset: "-05:00",
  nap: false,
  score_state: "SCORED",
  score: {
    stage_summary: {
      total_in_bed_time_milli: 30272735,
      total_awake_time_milli: 1403507,
      total_no_data_time_milli: 0,
      total_light_sleep_time_milli: 14905851,
      total_slow_wave_sleep_time_milli: 6630370,
      total_rem_sleep_time_milli: 5879573,
      sleep_cycle_count: 3,
      disturbance_count: 12,
    },
    respiratory_rate: 16.11328125,
    sleep_performance_percentage: 98,
    sleep_consistency_percentage: 90,
    sleep_efficiency_percentage: 91.69533848,
  },
};

type Doc = Record<string, unknown>;

/** The user's records by id (recoveries by cycle id), which tests may add to. */
export interface WhoopDocs {
  sleep: Map<string, Doc>;
  recovery: Map<string, Doc>;
  workout: Map<string, Doc>;
}

/** A collection page as WHOOP answers it: records whose `start` (recoveries: `created_at`) is within [start, end). */
function collection(req: Request, docs: Map<string, Doc>, timeField: string): Response {
  const q = new URL(req.url).searchParams;
  if (Number(q.get("limit") ?? 10) > 25) return Response.json({ message: "limit must be ≤ 25" }, { status: 400 });
  const from = Date.parse(q.get("start") ?? "1970-01-01T00:00:00Z");
  const to = q.get("end") ? Date.parse(q.get("end") ?? "") : Number.POSITIVE_INFINITY;
  const records = [...docs.values()].filter((d) => Date.parse(String(d[timeField])) >= from && Date.parse(String(d[timeField])) < to);
  return Response.json({ records, next_token: null });
}

export function whoopMock(clientId = "whoop-client", clientSecret = "whoop-secret"): VendorMock & { accessDeleted: number; docs: WhoopDocs } {
  const docs: WhoopDocs = {
    sleep: new Map([[SLEEP_ID, whoopSleep]]),
    recovery: new Map<string, Doc>([
      ["93845", recovery],
      ["93846", { ...recovery, cycle_id: 93846, score_state: "PENDING_SCORE", score: undefined }],
    ]),
    workout: new Map(),
  };
  const mock = Object.assign(new VendorMock({ origin: WHOOP_ORIGIN, tokenPath: "/oauth/oauth2/token", clientId, clientSecret, clientAuth: "post", rotate: true, expiresIn: 3600 }), { accessDeleted: 0, docs });
  const byId = (map: Map<string, Doc>, id: string | undefined) => {
    const doc = map.get(id ?? "");
    return doc ? Response.json(doc) : Response.json({}, { status: 404 });
  };
  mock
    .route("GET", /^\/developer\/v2\/user\/profile\/basic$/, (_req, user: MockUser) => Response.json({ user_id: Number(user.id), email: "p@example.org", first_name: "P", last_name: "Q" }))
    .route("GET", /^\/developer\/v2\/activity\/sleep\/([0-9a-f-]+)$/, (_req, _u, m) => byId(docs.sleep, m[1]))
    .route("GET", /^\/developer\/v2\/activity\/workout\/([0-9a-f-]+)$/, (_req, _u, m) => byId(docs.workout, m[1]))
    .route("GET", /^\/developer\/v2\/activity\/sleep$/, (req) => collection(req, docs.sleep, "start"))
    .route("GET", /^\/developer\/v2\/activity\/workout$/, (req) => collection(req, docs.workout, "start"))
    .route("GET", /^\/developer\/v2\/recovery$/, (req) => collection(req, docs.recovery, "created_at"))
    .route("GET", /^\/developer\/v2\/cycle\/(\d+)\/recovery$/, (_req, _u, m) => (m[1] === "666" ? new Response("<html>oops</html>", { status: 200 }) : byId(docs.recovery, m[1])))
    .route("GET", /^\/developer\/v2\/cycle$/, (req) => {
      const token = new URL(req.url).searchParams.get("nextToken");
      const limit = Number(new URL(req.url).searchParams.get("limit"));
      if (limit > 25) return Response.json({ message: "limit must be ≤ 25" }, { status: 400 });
      const running = { ...cycles.records[0], id: 93846, start: "2022-04-25T02:25:44.774Z", end: null };
      return token ? Response.json({ records: [running], next_token: null }) : Response.json(cycles);
    })
    .route("DELETE", /^\/developer\/v2\/user\/access$/, () => {
      mock.accessDeleted++;
      return new Response(null, { status: 204 });
    });
  return mock;
}

export function whoopSignedHeaders(secret: string, body: string, timestamp = String(Date.now())): Record<string, string> {
  const signature = createHmac("sha256", secret).update(timestamp + body).digest("base64");
  return { "content-type": "application/json", "x-whoop-signature": signature, "x-whoop-signature-timestamp": timestamp };
}
