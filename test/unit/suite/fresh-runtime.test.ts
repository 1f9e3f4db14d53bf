// Worker test files share a workerd (vitest.config.ts: the worker project runs with isolate false),
// and each must still find it as a new one whatever ran before it, including files written later:
// test/support/fresh-runtime.ts does that for every file. Two files that each check the runtime is
// fresh and then leave it as untidy as they can (test/fixtures/fresh-runtime/visit.ts: storage,
// Durable Object state and alarms, queued AuditEvents, the service profile, the pipelines' FHIR
// store, spies, replaced globals, fake timers, the public rate-limit window) run in one workerd in
// both orders, and every test passes each time.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { VisitResult } from "./fresh-runtime-runner";

const ROOT = path.resolve(import.meta.dirname, "../../..");

describe("a Worker file in a shared runtime", () => {
  // Two vitest runs with a workerd each: a minute on a quiet machine, several on a loaded one.
  it("finds it as a new one after another file, in either order", { timeout: 600_000 }, async () => {
    const run = await promisify(execFile)(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(import.meta.dirname, "fresh-runtime-runner.ts")], { cwd: ROOT, encoding: "utf8", timeout: 590_000, maxBuffer: 64 * 1024 * 1024 });
    const { results, unhandled } = JSON.parse(run.stdout.trim().split("\n").pop() ?? "{}") as { results: VisitResult[]; unhandled: string[] };
    expect(unhandled).toEqual([]);
    // vitest reports a run's modules in an order of its own; the run order is checked by the visits below.
    const line = (r: VisitResult) => `${r.order.join(">")} ${r.file}: ${r.test}: ${r.state}${r.errors.length ? ` (${r.errors.join("; ")})` : ""}`;
    expect(results.map(line).sort()).toEqual(
      [["first", "second"], ["second", "first"]].flatMap((order) =>
        order.flatMap((name) => [`${order.join(">")} ${name}.fixture.ts: finds the runtime as a new one: passed`, `${order.join(">")} ${name}.fixture.ts: leaves it as untidy as a file can, putting nothing back: passed`]),
      ).sort(),
    );
    // Each order ran its second file in the runtime its first file had left behind.
    for (const order of [["first", "second"], ["second", "first"]]) {
      const second = results.find((r) => r.order.join() === order.join() && r.file === `${order[1]}.fixture.ts` && r.test === "finds the runtime as a new one");
      expect(((second?.visits ?? []) as string[]).slice(-2)).toEqual(order);
    }
  });
});
