// Five test projects: the Worker suite inside workerd; pure domain modules in
// Node (they read fixture files); npm FHIR clients in Node against `wrangler dev`;
// the bridge, which is a Node process; and the web console in a real browser.
//
// Wall time (`npm test`, scripts/test.ts, docs/testing.md): vitest's default maxWorkers is the
// cores less one, so one file at a time on CI's two cores, while much of a Worker file's time is
// waiting (loopback peers, queue deliveries, alarms). The Worker project runs WORKER_FILES files at
// once: each file has its own workerd with in-memory storage, and the globalSetup peers are safe to
// share (fresh ports, per-test peer names, users and control ids). Its static assets are a fixed
// stand-in, so its Miniflares never depend on whether console/dist is built. The Node projects
// (unit, interop, bridge) and the browser project stay one file at a time: their heavy files each
// start wrangler dev, npm start or the bridge within fixed hook budgets. scripts/test.ts runs them
// in a second vitest process beside the Worker project's (vitest runs projects with different
// maxWorkers one after the other). `vitest doctor` does not help here: it only probes maxWorkers
// below the configured one (half, then half again), and the default is already 1.
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/** Worker test files at once: three keeps two cores busy while files wait; more only queues CPU. */
const WORKER_FILES = 3;

export default defineConfig(async () => {
  const migrations = async (set: string) => readD1Migrations(path.join(import.meta.dirname, "migrations", set));
  const [controlMigrations, dataMigrations] = [await migrations("control"), await migrations("data")];
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              // The fake servers the suite calls listen on 127.0.0.1; the guard refuses everything
              // else (127.0.0.2 stands in for a forbidden target in test/outbound/).
              miniflare: { bindings: { CONTROL_MIGRATIONS: controlMigrations, DATA_MIGRATIONS: dataMigrations, DEV_MODE: "true", LOG_LEVEL: "error", OPERATOR_TOKEN: "test-operator-token", MAX_RUN_STATE_CHARS: String(12 * 1024 * 1024), OUTBOUND_ALLOW: "127.0.0.1", SERVICE_PROFILE: "test", ORG_MOVE_SETTLE_MS: "0" },
                // Queued AuditEvents are delivered within 50 ms here (1 s deployed), so tests that read
                // audits back wait for a delivery, not for a batch to fill.
                queueConsumers: { "cdis-audit": { maxBatchTimeout: 0.05 } },
                assets: { directory: "./test/fixtures/console-stand-in" },
              },
            }),
          ],
          test: {
            name: "worker",
            maxWorkers: WORKER_FILES,
            include: ["test/**/*.test.ts"],
            exclude: ["test/unit/**", "test/interop/**", "test/browser/**"],
            // A few tests make hundreds of requests or several exports; on two busy cores they can
            // need more than vitest's 5 s default, which is a wait, not a failure.
            testTimeout: 20_000,
            // service-profile.ts registers the fakes SERVICE_PROFILE=test selects (src/platform/service-profiles.ts).
            setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/prototype-sentinel.ts", "./test/setup/service-profile.ts"],
            // Loopback servers in Node (workerd cannot listen): an MLLP receiver for the hl7.send
            // tests, a redirector plus a forbidden target for the outbound-guard tests, a clearinghouse
            // plus on-demand Orthancs for the X12 and DICOMweb node tests, a device vendor stand-in, and
            // an independent FHIR server (Medplum's router) as the EHR for fetch and write-back.
            globalSetup: ["./test/setup/mllp-server.ts", "./test/setup/redirect-server.ts", "./test/setup/standards-servers.ts", "./test/setup/device-vendor-server.ts", "./test/setup/fhir-peer.ts"],
          },
        },
        // 20 s as in the Worker project: a test that spawns a process (the bridge, tsx, wrangler)
        // waits longer for a CPU shared with the Worker files beside it; a wait, not a failure.
        { test: { name: "unit", environment: "node", include: ["test/unit/**/*.test.ts"], testTimeout: 20_000 } },
        // Real npm FHIR clients in Node against the service under `wrangler dev --local`, and keep-alive
        // connections against `npm start`'s runtime.
        { test: { name: "interop", environment: "node", include: ["test/interop/**/*.test.ts"], hookTimeout: 180_000, testTimeout: 60_000 } },
        { test: { name: "bridge", environment: "node", include: ["bridge/test/**/*.test.ts"], testTimeout: 20_000 } },
        // The web console in Debian's Chromium against the service as `npm start` runs it: one
        // service and one browser for the whole suite (test/browser/setup), files one at a time.
        {
          test: {
            name: "browser",
            environment: "node",
            include: ["test/browser/**/*.test.ts"],
            globalSetup: ["./test/browser/setup/console-server.ts"],
            fileParallelism: false,
            hookTimeout: 180_000,
            testTimeout: 60_000,
          },
        },
      ],
    },
  };
});
