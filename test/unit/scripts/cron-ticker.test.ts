// The local cron ticker of `npm start` and `npm run dev`: at each minute boundary it runs the
// scheduled handler once per matching cron, with the minute as scheduledTime, through wrangler
// dev's endpoint or a runtime's own firer (npm start's Miniflare: test/unit/scripts/npm-start.test.ts).
// First against a fake server with a fake clock, then against the real Worker under
// `wrangler dev`, where a deployed schedule-triggered pipeline must start.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../bench/lib/worker";
import { eventually } from "../../support/eventually";
import { SCHEDULED_PATH, dueCrons, fireScheduled, nextMinute, startCronTicker, stopTicker } from "../../../scripts/lib/cron-ticker";

/** A clock the ticker's sleeps advance instantly; stops the ticker after `ticks` minute boundaries. */
function fakeClock(start: string, ticks: number, stop: () => void) {
  let now = Date.parse(start);
  let slept = 0;
  return {
    now: () => now,
    sleepUntil: async (at: number) => {
      if (++slept > ticks) return stop();
      now = at;
    },
  };
}

describe("cron ticker against a fake server", () => {
  let server: Server;
  let url: string;
  const seen: { path: string; cron: string | null; time: string | null }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      seen.push({ path: u.pathname, cron: u.searchParams.get("cron"), time: u.searchParams.get("time") });
      // The first call fails: the ticker must report it and keep ticking.
      res.writeHead(seen.length === 1 ? 500 : 200).end(seen.length === 1 ? "exception" : "ok");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("computes minute boundaries and the crons due in a minute (UTC)", () => {
    expect(new Date(nextMinute(Date.parse("2030-01-01T10:58:30.500Z"))).toISOString()).toBe("2030-01-01T10:59:00.000Z");
    expect(new Date(nextMinute(Date.parse("2030-01-01T10:59:00.000Z"))).toISOString()).toBe("2030-01-01T11:00:00.000Z");
    expect(dueCrons(["* * * * *", "0 * * * *", "*/5 * * * *"], new Date("2030-01-01T11:00:00Z"))).toEqual(["* * * * *", "0 * * * *", "*/5 * * * *"]);
    expect(dueCrons(["* * * * *", "0 * * * *", "*/5 * * * *"], new Date("2030-01-01T11:01:00Z"))).toEqual(["* * * * *"]);
  });

  it("calls the scheduled handler at each minute boundary, once per due cron, reporting failures and going on", async () => {
    const logged: string[] = [];
    let ticker: ReturnType<typeof startCronTicker> | undefined;
    const clock = fakeClock("2030-01-01T10:58:30Z", 3, () => ticker?.stop());
    ticker = startCronTicker({ url, crons: ["* * * * *", "0 * * * *"], log: (l) => logged.push(l), ...clock });
    await ticker.done;
    const at = (iso: string) => String(Date.parse(iso));
    expect(seen).toEqual([
      { path: SCHEDULED_PATH, cron: "* * * * *", time: at("2030-01-01T10:59:00Z") },
      { path: SCHEDULED_PATH, cron: "* * * * *", time: at("2030-01-01T11:00:00Z") },
      { path: SCHEDULED_PATH, cron: "0 * * * *", time: at("2030-01-01T11:00:00Z") },
      { path: SCHEDULED_PATH, cron: "* * * * *", time: at("2030-01-01T11:01:00Z") },
    ]);
    expect(logged).toEqual(['cron * * * * * at 2030-01-01T10:59:00.000Z: scheduled handler for "* * * * *" answered 500 exception']);
  });

  it("runs a runtime's own firer instead when given one (npm start: Miniflare's API)", async () => {
    const fired: string[] = [];
    let ticker: ReturnType<typeof startCronTicker> | undefined;
    const clock = fakeClock("2030-01-01T10:59:30Z", 2, () => ticker?.stop());
    const fire = async (cron: string, minute: Date) => {
      fired.push(`${cron} ${minute.toISOString()}`);
    };
    ticker = startCronTicker({ fire, crons: ["* * * * *", "0 * * * *"], ...clock });
    await ticker.done;
    expect(fired).toEqual(["* * * * * 2030-01-01T11:00:00.000Z", "0 * * * * 2030-01-01T11:00:00.000Z", "* * * * * 2030-01-01T11:01:00.000Z"]);
  });

  it("stops waiting for a running tick after the grace period (a scheduled handler that never returns)", async () => {
    let firing: () => void = () => {};
    const fired = new Promise<void>((r) => {
      firing = r;
    });
    const hung = startCronTicker({
      crons: ["* * * * *"],
      fire: () => {
        firing();
        return new Promise<void>(() => {});
      },
      now: () => Date.parse("2030-01-01T10:59:30Z"),
      sleepUntil: async () => {},
    });
    await fired;
    expect(await stopTicker(hung, 50)).toBe(false);
    // An idle ticker stops at once.
    const idle = startCronTicker({ crons: ["* * * * *"], fire: async () => {}, sleepUntil: (_at, signal) => new Promise((r) => signal.addEventListener("abort", () => r())) });
    expect(await stopTicker(idle, 60_000)).toBe(true);
  });

  it("refuses an invalid cron at start", () => {
    expect(() => startCronTicker({ url, crons: ["every minute"] })).toThrow();
  });
});

describe("cron ticker against the Worker under wrangler dev", () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    worker = await startWorker();
  }, 180_000);
  afterAll(async () => worker?.stop());

  it("runs the scheduled handler, which starts the deployed schedule-triggered pipeline for that minute", async () => {
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${worker.url}${path}`, { method: body ? "POST" : "GET", headers: { ...worker.headers, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
      expect(res.ok).toBe(true);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const definition = {
      nodes: [
        { id: "cron", type: "control.schedule_trigger", config: { cron: "* * * * *" } },
        { id: "echo", type: "data.transform", config: { expression: "$" } },
      ],
      connections: [{ from: { node: "cron", port: "event" }, to: { node: "echo", port: "input" } }],
    };
    const { id } = (await api("/api/pipelines", { name: "every minute", description: "", definition })) as { id: string };
    await api(`/api/pipelines/${id}/deploy`, {});

    // wrangler dev's trigger runs the handler at the request's time (SCHEDULED_PATH), and answers
    // before the work the handler left to waitUntil is done.
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    await fireScheduled(worker.url, "* * * * *", new Date(minute));
    const list = (await eventually(
      () => api(`/api/executions?pipeline_id=${id}`),
      (l) => (l.executions as unknown[]).length > 0,
    )) as { executions: { execution_id: string; trigger: string }[] };
    expect(list.executions.map((e) => e.trigger)).toEqual(["schedule"]);
    const execution = (await api(`/api/executions/${list.executions[0]!.execution_id}`)) as { inputs: { scheduled_time: string } };
    // The minute asked for, or the next one if the boundary passed on the way.
    expect([minute, minute + 60_000]).toContain(Date.parse(execution.inputs.scheduled_time));
  }, 60_000);
});
