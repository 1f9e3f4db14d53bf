// `npm start` as an operator runs it, on a temporary state directory: the entry prints the
// seeded organization and key, serves them, logs one line per request and stops on SIGTERM,
// leaving neither workerd nor the bundle behind; the admin CLI reads what it wrote;
// then its runtime restarted on the same state keeps the data (D1 and a Durable Object's),
// ticks the Worker's scheduled handler through Miniflare, and wrangler dev (`npm run dev`'s
// runtime) reads what it wrote from the very same directory.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import path from "node:path";
import { Log, LogLevel } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../bench/lib/worker";
import { type MiniflareRuntime, startMiniflareRuntime } from "../../../scripts/lib/miniflare-runtime";
import { offlineEnv } from "../../../scripts/lib/wrangler";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");
const TICK = "2031-02-03T04:05:00.000Z";

/** Miniflare's lines, kept instead of printed. */
class CapturedLog extends Log {
  lines: string[] = [];
  protected override log(message: string): void {
    this.lines.push(message);
  }
}

async function waitForOutput(child: ChildProcess, out: () => string, pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const match = out().match(pattern);
    if (match) return match;
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`npm start printed no ${pattern} in time:\n${out()}`);
}

interface NpmStart {
  child: ChildProcess;
  out: () => string;
  /** Its own temporary directory, to see what it leaves behind (the bundle, Miniflare's files). */
  tmp: string;
}

/** The environment a script gets from npm (offline, local binaries), with the seeded ids left to it. */
function scriptEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const { DEV_ORG_ID, DEV_API_KEY, ...inherited } = offlineEnv;
  return { ...inherited, ...vars, PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}` };
}

/** `npm start`'s entry as an operator runs it (through tsx), on `stateDir`, any free port. */
function npmStart(stateDir: string, tmp: string): NpmStart {
  mkdirSync(tmp);
  const env = scriptEnv({ PORT: "0", STATE_DIR: stateDir, LOG_LEVEL: "info", TMPDIR: tmp });
  const child = spawn(TSX, ["scripts/start.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  return { child, out: () => out, tmp };
}

async function serviceUrl({ child, out }: NpmStart): Promise<string> {
  const [, port] = await waitForOutput(child, out, /Service: +http:\/\/localhost:(\d+)/);
  return `http://127.0.0.1:${port}`;
}

/** A GET through node:http, which (unlike fetch) sends no Accept-Encoding unless told to. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

/** Kicks off a system export, waits for it and answers its first file's URL. */
async function exportedFile(base: string, headers: Record<string, string>, orgId: string): Promise<string> {
  const kickoff = await fetch(`${base}/fhir/r4/${orgId}/$export?_type=Patient`, { headers: { ...headers, accept: "application/fhir+json", prefer: "respond-async" } });
  expect(kickoff.status).toBe(202);
  const status = kickoff.headers.get("content-location") as string;
  for (let i = 0; i < 300; i++) {
    const res = await fetch(status, { headers });
    if (res.status === 200) return ((await res.json()) as { output: { url: string }[] }).output[0]!.url;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the export did not complete");
}

async function exitCode(child: ChildProcess): Promise<number | null> {
  return child.exitCode ?? new Promise((r) => child.once("exit", (c) => r(c)));
}

/** workerd is gone (nothing listens on the port any more) and so are the bundle and Miniflare's files. */
async function expectNothingLeft(base: string, tmp: string): Promise<void> {
  await expect(fetch(`${base}/health`)).rejects.toThrow();
  expect(readdirSync(tmp).filter((f) => /^(cdis-start-bundle|miniflare)-/.test(f))).toEqual([]);
}

describe("npm start: the bundle on Miniflare directly", () => {
  let state: string;
  let stateDir: string;
  let headers: Record<string, string>;
  let pipelineId: string;
  let sessionId: string;
  const api = async (base: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, { method: body ? "POST" : "GET", headers: { ...headers, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(() => {
    state = mkdtempSync(path.join(tmpdir(), "cdis-start-"));
    stateDir = path.join(state, "state");
  });
  afterAll(() => rmSync(state, { recursive: true, force: true }));

  it("prints the seeded organization and key, serves them, logs each request and stops on SIGTERM", async () => {
    const started = npmStart(stateDir, path.join(state, "tmp"));
    const { child, out } = started;
    let base = "";
    try {
      const [, orgId, apiKey] = await waitForOutput(child, out, /Development organization: (\S+)\s+Admin API key: +(cdis_\S+)/);
      base = await serviceUrl(started);
      headers = { authorization: `Bearer ${apiKey}`, "x-organization-id": orgId as string };

      expect((await fetch(`${base}/health`)).status).toBe(200);
      // The console's page for its routes, its files, 404 for any other path; X-RateLimit-* on each.
      const page = await fetch(`${base}/pipelines/some-id`);
      expect([page.status, page.headers.get("content-type"), page.headers.get("x-ratelimit-limit")]).toEqual([200, "text/html; charset=utf-8", "300"]);
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      const script = /<script[^>]+src="([^"]+)"/.exec(await page.text())?.[1] as string;
      const asset = await fetch(`${base}${script}`);
      expect([asset.status, asset.headers.get("x-ratelimit-limit"), asset.headers.get("cache-control")]).toEqual([200, "300", "public, max-age=31536000, immutable"]);
      await asset.body?.cancel();
      const nowhere = await fetch(`${base}/no-such-page`);
      expect([nowhere.status, nowhere.headers.get("x-ratelimit-limit")]).toEqual([404, "300"]);
      await nowhere.body?.cancel();
      const org = await api(base, "/api/organization");
      expect(org).toMatchObject({ status: 200, body: { id: orgId } });
      expect((await fetch(`${base}/api/organization`)).status).toBe(401);

      const definition = {
        nodes: [
          { id: "cron", type: "control.schedule_trigger", config: { cron: "* * * * *" } },
          { id: "echo", type: "data.transform", config: { expression: "$" } },
        ],
        connections: [{ from: { node: "cron", port: "event" }, to: { node: "echo", port: "input" } }],
      };
      const created = await api(base, "/api/pipelines", { name: "every minute", description: "", definition });
      expect(created.status).toBe(201);
      pipelineId = created.body.id as string;
      expect((await api(base, `/api/pipelines/${pipelineId}/deploy`, {})).status).toBe(200);
      // A step session lives in its StepSession Durable Object only.
      const session = await api(base, "/api/execute/step", { pipeline_id: pipelineId, inputs: {}, test_mode: true });
      expect(session.status).toBe(201);
      sessionId = session.body.session_id as string;
      expect((await api(base, "/api/api-keys", { name: "made under npm start", role: "clinician" })).status).toBe(201);

      // An export file asked for without Accept-Encoding comes uncompressed (Miniflare, like
      // Cloudflare, gives the Worker "br, gzip" instead of what the client sent); gzip when asked.
      const patient = await fetch(`${base}/fhir/r4/${orgId}/Patient`, { method: "POST", headers: { ...headers, "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Plain" }] }) });
      expect(patient.status).toBe(201);
      const file = await exportedFile(base, headers, orgId as string);
      const plain = await rawGet(file, headers);
      expect({ status: plain.status, encoding: plain.headers["content-encoding"] }).toEqual({ status: 200, encoding: undefined });
      expect(JSON.parse(plain.body.toString("utf8").trim())).toMatchObject({ resourceType: "Patient", name: [{ family: "Plain" }] });
      const gzipped = await rawGet(file, { ...headers, "accept-encoding": "gzip" });
      expect(gzipped.headers["content-encoding"]).toBe("gzip");
      expect(gunzipSync(gzipped.body).toString("utf8")).toBe(plain.body.toString("utf8"));

      // The Worker's own structured line per request (docs/operations.md), with the route pattern.
      await waitForOutput(child, out, /"msg":"request".*"method":"GET","route":"\/api\/organization","status":200,"duration_ms":[\d.]+/);
      // Refused by authentication before any route matched: the pattern is the middleware's.
      await waitForOutput(child, out, /"msg":"request".*"method":"GET","route":"\/api\/\*","status":401,.*"error_code":"UNAUTHORIZED"/);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exitCode(child)).toBe(0);
    expect(out()).toContain("Stopped: the cron ticker and Miniflare are shut down.");
    await expectNothingLeft(base, started.tmp);
  }, 120_000);

  it("shares its state with the admin CLI given the same STATE_DIR", () => {
    const env = scriptEnv({ STATE_DIR: stateDir });
    const r = spawnSync(TSX, ["scripts/admin.ts", "list-keys", "--org", "dev-org"], { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }[]).map((k) => k.name)).toEqual(["Development admin key", "made under npm start"]);
  }, 60_000);

  describe("restarted on the same state", () => {
    let runtime: MiniflareRuntime;
    const log = new CapturedLog(LogLevel.WARN);
    let ticked: () => void;
    const tick = new Promise<void>((r) => {
      ticked = r;
    });

    beforeAll(async () => {
      // A clock at the minute before TICK whose first sleep ends at once and whose second (after
      // the tick) reports it and waits until the ticker stops.
      let sleeps = 0;
      const clock = {
        now: () => Date.parse(TICK) - 30_000,
        sleepUntil: async (_at: number, signal: AbortSignal) => {
          if (++sleeps === 1) return;
          ticked();
          await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
        },
      };
      runtime = await startMiniflareRuntime({ port: 0, stateDir, logLevel: "warn", log, vars: { DEV_MODE: "true" }, clock });
    }, 60_000);
    afterAll(() => runtime?.stop());

    it("keeps D1 and Durable Object data, and logs no request below info", async () => {
      expect((await api(runtime.url, `/api/pipelines/${pipelineId}`)).status).toBe(200);
      expect((await api(runtime.url, `/api/execute/step/${sessionId}`, {})).status).toBe(200);
      expect(log.lines.filter((l) => l.includes("/api/"))).toEqual([]);
    });

    it("ticks the scheduled handler through Miniflare, which starts the deployed schedule-triggered pipeline for that minute", async () => {
      await tick;
      const list = await api(runtime.url, `/api/executions?pipeline_id=${pipelineId}`);
      const executions = list.body.executions as { execution_id: string; trigger: string }[];
      expect(executions.map((e) => e.trigger)).toEqual(["schedule"]);
      const execution = await api(runtime.url, `/api/executions/${executions[0]?.execution_id}`);
      expect(execution.body.inputs).toEqual({ scheduled_time: TICK });
      expect(log.lines).toEqual([]);
    });
  });

  describe("under wrangler dev (npm run dev) on the same state", () => {
    let worker: RunningWorker;
    beforeAll(async () => {
      worker = await startWorker({ stateDir });
    }, 120_000);
    afterAll(() => worker?.stop());

    it("reads what npm start wrote: the pipeline, its scheduled execution and the step session", async () => {
      expect((await api(worker.url, `/api/pipelines/${pipelineId}`)).status).toBe(200);
      const list = await api(worker.url, `/api/executions?pipeline_id=${pipelineId}`);
      expect((list.body.executions as { trigger: string }[]).map((e) => e.trigger)).toEqual(["schedule"]);
      expect((await api(worker.url, `/api/execute/step/${sessionId}`, {})).status).toBe(200);
    });
  });
});
