// A malformed-input fuzzer over every operation of the service's OpenAPI document (FHIR's
// interactions included: they are documented there with {type}) and over the HTTP transport:
// wrong types, huge and deeply nested JSON, bad escapes, odd methods and headers, 16 MiB bodies,
// slow bodies, sockets closed early. Seeded, so a run is repeatable. The pass condition (issue
// #32): no response ≥ 500 but a documented 503, every error body in the documented shape
// (management: {"error":{"code","message","status"}}, FHIR: OperationOutcome), and /health
// answering throughout. Used by test/interop/fuzz.test.ts (bounded) and `npm run fuzz` (longer).
import { get } from "node:http";
import { connect } from "node:net";
import { seededRandom } from "./seeded-random";

export interface FuzzTarget {
  baseUrl: string;
  orgId: string;
  apiKey: string;
}

export interface FuzzOptions extends FuzzTarget {
  seed: number;
  /** Stop after this many requests… */
  requests?: number;
  /** …or after this many seconds, whichever comes first. */
  seconds?: number;
  concurrency?: number;
  /** A request that has not answered in this long is a finding (the service is held). */
  requestTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Finding {
  kind: "server-error" | "shape" | "no-answer" | "health";
  request: string;
  status?: number;
  detail: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  durationMs: number;
  byStatus: Record<string, number>;
  findings: Finding[];
  /** Findings that match an issue another change is fixing (KNOWN below): reported, not failed. */
  known: (Finding & { issue: string })[];
  healthChecks: number;
  /** Requests whose connection the service closed before any response (counted in byStatus as -1). */
  resets: string[];
  /** The slowest requests (label and milliseconds), slowest first. */
  slowest: { request: string; ms: number }[];
}

/**
 * Findings that match a defect another change is fixing, reported apart so this lane tests
 * everything else meanwhile; each entry goes once its fix is merged. Empty: the 500s issue #32
 * named (bad % escapes in paths, :contains over 49 characters, deep nesting, a transaction whose
 * entry is not an array) are fixed and count as findings again.
 */
const KNOWN: { issue: string; matches(f: Finding): boolean }[] = [];

/** Documented 503s: a moving organization's writes, readiness naming its failing check. */
const DOCUMENTED_503 = new Set(["ORG_MOVING", "NOT_READY", "transient"]);

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"]);

type Rng = () => number;

interface Operation {
  method: string;
  path: string;
  query: string[];
  hasBody: boolean;
  bodyProps: string[];
}

interface Schema {
  properties?: Record<string, unknown>;
  $ref?: string;
}

function operationsOf(doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const schema = Object.values(op.requestBody?.content ?? {})[0]?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
        hasBody: Boolean(op.requestBody),
        bodyProps: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  return ops;
}

const TYPES = ["Patient", "Observation", "Encounter", "Bundle", "Binary", "DocumentReference", "Condition", "Consent", "AuditEvent", "Group", "List", "Practitioner", "NotAType", "patient", "Patient%00", "_history"];
const FHIR_PARAMS = ["name", "name:contains", "family:exact", "given", "address:contains", "birthdate", "_id", "_lastUpdated", "identifier", "code", "code:text", "value-quantity", "subject", "subject.name", "patient:Patient.name", "_count", "_offset", "_sort", "_include", "_revinclude", "_has:Observation:subject:code", "_elements", "_summary", "_total", "_filter", "_text", "_content", "date", "status", "_format", "_since", "_type", "_outputFormat", "page", "limit", "offset", "since", "until", "q"];

function words(rng: Rng) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
  const int = (n: number) => Math.floor(rng() * n);
  const strings = () =>
    pick([
      () => "",
      () => "a".repeat(1 + int(200)),
      () => "%zz",
      () => "%",
      () => "%E0%A4%A",
      () => "%00",
      () => "..%2F..%2Fetc",
      () => "\u0000\uFFFF\uD800",
      () => "'; DROP TABLE x; --",
      () => "%_".repeat(1 + int(30)),
      () => `${"a".repeat(40 + int(80))}!`,
      () => "ge2020-01-01",
      () => "notadate",
      () => "http://x|y",
      () => `urn:uuid:${"0".repeat(int(40))}`,
      () => "🙂".repeat(1 + int(50)),
      () => `Patient/${"9".repeat(int(30))}`,
      () => String(-1 - int(1e9)),
      () => "1e309",
      () => "$where(x)",
      () => "((a+)+)+$",
      () => "x".repeat(5000),
    ])();
  const scalar = (): unknown => pick([() => null, () => true, () => -0, () => 1e308, () => int(1e6), () => strings(), () => [], () => ({})])();
  /** JSON text nested `depth` levels (built as text: JSON.stringify itself overflows on such values). */
  const nested = (depth: number): string => {
    const arrays = rng() < 0.5;
    return arrays ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"url":"x","extension":['.repeat(depth)}{}${"]}".repeat(depth)}`;
  };
  const value = (depth = 0): unknown => {
    const r = rng();
    if (depth > 3 || r < 0.5) return scalar();
    if (r < 0.7) return Array.from({ length: int(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(["resourceType", "id", "entry", "type", "name", "url", "__proto__", "constructor", strings()]), value(depth + 1)]));
  };
  return { pick, int, strings, scalar, nested, value };
}

interface Built {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  /** How the body goes out: at once, slowly in pieces, or cut off with the socket closed. */
  transport: "fetch" | "slow" | "cut";
  label: string;
}

/** encodeURIComponent for any string (a lone surrogate would throw): surrogates become "?". */
const encode = (s: string) => encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, "?"));

function build(rng: Rng, ops: Operation[], target: FuzzTarget): Built {
  const w = words(rng);
  const op = w.pick(ops);
  const fhir = op.path.startsWith("/fhir/");
  let label = "";
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "orgId") return rng() < 0.9 ? target.orgId : encode(w.pick(["other-org", "", "dev-org%2F..", w.strings()]));
    if (name === "type") return w.pick(TYPES);
    const raw = rng() < 0.3 ? w.strings() : crypto.randomUUID();
    // Raw bad escapes on purpose some of the time; encoded otherwise.
    return rng() < 0.2 ? raw.replace(/[/?#\s]/g, "") : encode(raw);
  });
  const params = new URLSearchParams();
  const names = fhir ? FHIR_PARAMS : op.query;
  for (let i = 0, n = w.int(4); i < n && names.length; i++) params.append(w.pick(names), w.strings());
  let query = params.toString();
  if (rng() < 0.1) query += `&${w.pick(["%zz", "a=%", "=%E0", "&&&", "x=1;y=2"])}`;
  const headers: Record<string, string> = {};
  const auth = rng();
  if (auth < 0.9) {
    headers.authorization = `Bearer ${target.apiKey}`;
    headers["x-organization-id"] = target.orgId;
  } else if (auth < 0.95) headers.authorization = `Bearer ${w.pick(["cdis_x", "", `${target.apiKey.slice(0, -1)}A`])}`;
  let method = op.method;
  if (rng() < 0.03) method = w.pick(["PROPFIND", "OPTIONS", "HEAD", "PURGE", "get"]);
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (op.hasBody || (method !== "GET" && method !== "HEAD" && rng() < 0.3)) {
    const r = rng();
    if (r < 0.04) {
      const depth = 500 + w.int(5000);
      body = fhir ? `{"resourceType":"Patient","extension":[${w.nested(depth)}]}` : `{"samples":[${w.nested(depth)}]}`;
      label = ` deep${depth}`;
    } else if (r < 0.12) body = w.pick(["{", "[1,", '{"a":"\\x"}', '{"a":"\\ud800"}', "\u0000", "null", "1e999999", '{"a":1,"a":2}', "\uFEFF{}", "<xml/>", ""]);
    else if (r < 0.4) body = JSON.stringify(w.value());
    else if (r < 0.5 && fhir) body = JSON.stringify({ resourceType: "Bundle", type: w.pick(["transaction", "batch", "collection"]), entry: w.pick([[w.value()], "x", null, [null], [{ request: { method: "POST", url: w.strings() }, resource: w.value() }]]) });
    else if (r < 0.507) {
      body = new Uint8Array(16 * 1024 * 1024 + w.int(2) * 1024).fill(0x61);
      label = " 16MiB";
    } else {
      const shaped = Object.fromEntries(op.bodyProps.map((p) => [p, rng() < 0.6 ? w.value() : w.strings()]));
      body = JSON.stringify(fhir ? { resourceType: op.path.includes("{type}") ? w.pick(TYPES) : "Parameters", ...shaped, ...(w.value() as object) } : shaped);
    }
    headers["content-type"] = w.pick(fhir ? ["application/fhir+json", "application/json", "application/fhir+xml", "text/plain", "application/json-patch+json", "application/fhir+json; charset=utf-16"] : ["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]);
  }
  if (rng() < 0.05) headers[w.pick(["if-match", "if-none-match", "if-none-exist", "prefer", "accept", "x-request-id", "accept-encoding", "x-forwarded-for", "range"])] = w.strings().replace(/[^\x20-\x7e]/g, "?");
  if (rng() < 0.02) headers["x-padding"] = "p".repeat(8000 + w.int(8000));
  const t = rng();
  const transport = body && typeof body === "string" && t < 0.03 ? "slow" : t < 0.05 ? "cut" : "fetch";
  const url = `${path}${query ? `?${query}` : ""}`;
  return { method, path: url, headers, body, transport, label: `${method} ${url.slice(0, 200)}${label}${transport === "fetch" ? "" : ` (${transport})`}` };
}

/** Sends over a raw socket: the body in pieces with pauses ("slow"), or half of it and then closes ("cut"). */
function raw(baseUrl: string, b: Built, timeoutMs: number): Promise<number | undefined> {
  const url = new URL(b.path, baseUrl);
  const body = Buffer.from(typeof b.body === "string" ? b.body : (b.body ?? ""));
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    const done = (status: number | undefined) => {
      socket.destroy();
      clearTimeout(timer);
      resolve(status);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.on("error", () => done(0));
    socket.on("data", (d) => {
      answer += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (m) done(Number(m[1]));
    });
    socket.on("close", () => done(0));
    socket.on("connect", async () => {
      const head = [`${b.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`, `content-length: ${body.length}`, "connection: close", ...Object.entries(b.headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      if (b.transport === "cut") {
        socket.write(body.subarray(0, body.length >> 1));
        return done(0);
      }
      for (let i = 0; i < body.length && !socket.destroyed; i += Math.max(1, body.length >> 3)) {
        socket.write(body.subarray(i, i + Math.max(1, body.length >> 3)));
        await new Promise((r) => setTimeout(r, 150));
      }
    });
  });
}

function checkShape(b: Built, status: number, text: string): string | undefined {
  const fhir = b.path.startsWith("/fhir/");
  if (!(fhir || b.path.startsWith("/api/") || b.path.startsWith("/admin/")) || b.method === "HEAD" || status < 400) return undefined;
  // SMART's authorize and consent pages are for a person in a browser: a request they cannot serve
  // is an HTML error page, as OAuth asks when no redirect is safe (docs/smart.md).
  if (fhir && /\/auth\/authorize(\/|$)/.test(b.path) && /^<!doctype html>/i.test(text)) return undefined;
  // FHIR XML (asked for with _format or Accept, or sent as XML): an OperationOutcome in XML.
  if (fhir && /^<\?xml[^>]*>\s*<OperationOutcome\b/.test(text)) return undefined;
  let body: { resourceType?: string; issue?: unknown[]; error?: { code?: unknown; message?: unknown; status?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  if (body?.resourceType === "OperationOutcome" && Array.isArray(body.issue)) return undefined;
  const e = body?.error;
  if (!fhir && e && typeof e.code === "string" && typeof e.message === "string" && e.status === status) return undefined;
  // A FHIR path may answer a management-shaped error before it is known to be FHIR (auth, limits): both shapes are documented.
  if (fhir && e && typeof e.code === "string" && e.status === status) return undefined;
  return `not the documented error shape: ${text.slice(0, 160)}`;
}

/** GET /health on a connection of its own (never one a fuzzed request left in an odd state): undefined when 200. */
function healthOf(baseUrl: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = get(new URL("/health", baseUrl), { agent: false, timeout: 10_000 }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve(res.statusCode === 200 ? undefined : `${res.statusCode} ${text.slice(0, 200)}`));
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.on("error", (e) => resolve(e.message));
  });
}

function codeOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: { code?: string }; issue?: { code?: string }[] };
    return body.error?.code ?? body.issue?.[0]?.code;
  } catch {
    return undefined;
  }
}

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const rng = seededRandom(opts.seed);
  const timeoutMs = opts.requestTimeoutMs ?? 30_000;
  const log = opts.log ?? (() => undefined);
  const doc = await (await fetch(new URL("/api/openapi.json", opts.baseUrl))).json();
  const ops = operationsOf(doc as Parameters<typeof operationsOf>[0]);
  const report: FuzzReport = { seed: opts.seed, requests: 0, durationMs: 0, byStatus: {}, findings: [], known: [], healthChecks: 0, resets: [], slowest: [] };
  const started = Date.now();
  const deadline = opts.seconds ? started + opts.seconds * 1000 : Number.POSITIVE_INFINITY;
  const limit = opts.requests ?? Number.POSITIVE_INFINITY;
  const record = (f: Finding) => {
    const known = KNOWN.find((k) => k.matches(f));
    if (known) report.known.push({ ...f, issue: known.issue });
    else {
      report.findings.push(f);
      log(`finding: ${f.kind} ${f.status ?? ""} ${f.request} — ${f.detail}`);
    }
  };
  let stop = false;
  /** Requests under way, with their start: a /health that does not answer names them (the likely holders). */
  const inFlight = new Map<Built, number>();
  const underWay = () => [...inFlight].map(([b, at]) => `${b.label} (${Math.round((Date.now() - at) / 1000)} s)`).join("; ");
  const health = (async () => {
    while (!stop) {
      const answer = await healthOf(opts.baseUrl);
      report.healthChecks++;
      if (answer && !stop) record({ kind: "health", request: "GET /health", detail: `${answer}; under way: ${underWay()}` });
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  // Built in order from the one generator, so a seed names the same requests whatever the concurrency.
  const next = () => {
    if (report.requests >= limit || Date.now() >= deadline) return undefined;
    report.requests++;
    return build(rng, ops, opts);
  };
  const worker = async () => {
    for (let b = next(); b; b = next()) {
      let status: number | undefined;
      let text = "";
      inFlight.set(b, Date.now());
      if (b.transport === "fetch") {
        try {
          const res = await fetch(new URL(b.path, opts.baseUrl), { method: b.method, headers: b.headers, body: b.method === "GET" || b.method === "HEAD" ? undefined : b.body, signal: AbortSignal.timeout(timeoutMs) });
          status = res.status;
          text = await res.text();
        } catch (e) {
          const reason = e instanceof Error ? `${e.name}: ${(e.cause as Error | undefined)?.message ?? e.message}` : String(e);
          // A refused 16 MiB upload may be cut by the server once it answered 413: that is not a hang.
          if (e instanceof Error && e.name === "TimeoutError") record({ kind: "no-answer", request: b.label, detail: `no answer in ${timeoutMs} ms` });
          else {
            status = -1;
            report.resets.push(`${b.label}: ${reason}`);
          }
        }
      } else {
        status = await raw(opts.baseUrl, b, timeoutMs);
        if (status === undefined) record({ kind: "no-answer", request: b.label, detail: `no answer in ${timeoutMs} ms` });
      }
      const ms = Date.now() - (inFlight.get(b) ?? Date.now());
      inFlight.delete(b);
      report.slowest.push({ request: b.label, ms });
      report.slowest.sort((x, y) => y.ms - x.ms).splice(10);
      if (status === undefined) continue;
      report.byStatus[String(status)] = (report.byStatus[String(status)] ?? 0) + 1;
      // workerd's HTTP parser answers 501 itself, before the Worker, for a method HTTP does not define ("get", "PURGE"): RFC 9110 15.6.2.
      const runtime501 = status === 501 && !KNOWN_METHODS.has(b.method);
      if (status >= 500 && !runtime501 && !(status === 503 && DOCUMENTED_503.has(codeOf(text) ?? ""))) record({ kind: "server-error", request: b.label, status, detail: text.slice(0, 300) });
      else if (status > 0 && b.transport === "fetch") {
        const problem = checkShape(b, status, text);
        if (problem) record({ kind: "shape", request: b.label, status, detail: problem });
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  stop = true;
  await health;
  report.durationMs = Date.now() - started;
  return report;
}
