// npm start's watchdog (scripts/lib/watchdog.ts): workerd runs every request on one thread, so a
// request that never yields holds the whole service. First the loop against a fake probe, then
// npm start's own runtime with a route that spins for good: the watchdog restarts workerd and
// the service answers again on the same port.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Log, LogLevel } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { buildConsole } from "../../../scripts/lib/console-build";
import { type MiniflareRuntime, startMiniflareRuntime } from "../../../scripts/lib/miniflare-runtime";
import { DEFAULT_WATCHDOG_SECONDS, startWatchdog, watchdogSeconds } from "../../../scripts/lib/watchdog";
import { eventually } from "../../support/eventually";

class CapturedLog extends Log {
  lines: string[] = [];
  protected override log(message: string): void {
    this.lines.push(message);
  }
}

describe("watchdog loop", () => {
  it("restarts the runtime when a probe gets no answer within the limit, and only then", async () => {
    const lines: string[] = [];
    let held = true;
    let probes = 0;
    let restarted = 0;
    const dog = startWatchdog({
      limitMs: 50,
      intervalMs: 1,
      log: (l) => lines.push(l),
      // A held runtime never answers: the probe waits until the watchdog gives up on it.
      probe: (signal) => {
        probes++;
        return held ? new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))) : Promise.resolve();
      },
      restart: async () => {
        restarted++;
        held = false;
      },
    });
    await eventually(async () => probes, (n) => n >= 5);
    await dog.stop();
    expect(restarted).toBe(1);
    expect(dog.restarts).toBe(1);
    expect(lines[0]).toMatch(/answered nothing for 0.05 s/);
  });

  it("reads WATCHDOG_SECONDS (0 turns it off) and refuses anything else", () => {
    expect(watchdogSeconds({})).toBe(DEFAULT_WATCHDOG_SECONDS);
    expect(watchdogSeconds({ WATCHDOG_SECONDS: "0" })).toBe(0);
    expect(watchdogSeconds({ WATCHDOG_SECONDS: "2.5" })).toBe(2.5);
    expect(() => watchdogSeconds({ WATCHDOG_SECONDS: "soon" })).toThrow(/WATCHDOG_SECONDS/);
  });
});

describe("npm start's runtime with a request that never yields", () => {
  const stateDir = mkdtempSync(path.join(tmpdir(), "cdis-watchdog-"));
  const log = new CapturedLog(LogLevel.WARN);
  let runtime: MiniflareRuntime | undefined;
  afterAll(async () => {
    await runtime?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("is restarted by the watchdog, and answers again on the same port", { timeout: 120_000 }, async () => {
    // wrangler.toml serves console/dist as static assets; the runtime refuses to start without it.
    if (!existsSync(path.resolve(import.meta.dirname, "../../../console/dist/index.html"))) buildConsole({ quiet: true });
    runtime = await startMiniflareRuntime({
      port: 0,
      stateDir,
      logLevel: "warn",
      log,
      entry: path.resolve(import.meta.dirname, "../../fixtures/spinning-worker.ts"),
      watchdogSeconds: 2,
    });
    const ping = () => fetch(`${runtime?.url}/api/__test/ping`).then((r) => r.text(), () => "no answer");
    expect(await ping()).toBe("pong");
    const held = await fetch(`${runtime.url}/api/__test/spin`).then(
      (r) => `answered ${r.status}`,
      () => "connection closed",
    );
    // The held request's connection is closed with the old workerd; a new one serves the port.
    expect(held).toBe("connection closed");
    expect(await eventually(ping, (t) => t === "pong", 30_000)).toBe("pong");
    expect(runtime.restarts).toBe(1);
    expect(log.lines.join("\n")).toMatch(/\[watchdog\] workerd answered nothing for 2 s/);
  });
});
