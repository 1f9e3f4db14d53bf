// Five test projects: the Worker suite inside workerd; pure domain modules in
// Node (they read fixture files); npm FHIR clients in Node against `wrangler dev`;
// the bridge, which is a Node process; and the web console in a real browser.
//
// Wall time (`npm test`, scripts/test.ts, docs/testing.md): vitest's default maxWorkers is the
// cores less one, so one file at a time on CI's two cores, while much of a Worker file's time is
// waiting (loopback peers, queue deliveries, alarms). The Worker project runs WORKER_FILES files at
// once, each vitest worker one workerd for all the files it runs (isolate: false), and every file
// starts on a runtime as fresh as a new one (test/support/fresh-runtime.ts: the previous file's
// queues consumed, the storage reset and migrated, the isolate's seams put back); the few files
// that must have a workerd to themselves are the worker-isolated project. The globalSetup peers are
// safe to share (fresh ports, per-test peer names, users and control ids). Its static assets are a
// fixed stand-in, so its Miniflares never depend on whether console/dist is built. The Node projects
// (unit, interop, bridge) stay one file at a time: their heavy files each start wrangler dev,
// npm start or the bridge within fixed hook budgets; the browser project runs two at once. scripts/test.ts runs them
// in a second vitest process beside the Worker project's (vitest runs projects with different
// maxWorkers one after the other). `vitest doctor` does not help here: it only probes maxWorkers
// below the configured one (half, then half again), and the default is already 1.
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { AUDIT_CONSUMER, ISOLATED_WORKER_FILES, NODE_INCLUDE, UNIT_PROCESS_FILES, WORKER_EXCLUDE, WORKER_INCLUDE } from "./test/projects.ts";

/** The interop and browser projects' service and Chromium, started once for both. */
const SERVICE_SETUP = "./test/browser/setup/service.ts";

/** Worker test files at once: three keeps two cores busy while files wait; more only queues CPU. */
const WORKER_FILES = 3;

export default defineConfig(async () => {
  const migrations = async (set: string) => readD1Migrations(path.join(import.meta.dirname, "migrations", set));
  const [controlMigrations, dataMigrations] = [await migrations("control"), await migrations("data")];
  /** A Worker project: `isolate` false runs its files one after another in one workerd per vitest worker. */
  const workerProject = (name: string, isolate: boolean, include: string[], options: { exclude?: string[]; maxWorkers?: number } = {}) => ({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // The fake servers the suite calls listen on 127.0.0.1; the guard refuses everything
        // else (127.0.0.2 stands in for a forbidden target in test/outbound/).
        miniflare: {
          bindings: { CONTROL_MIGRATIONS: controlMigrations, DATA_MIGRATIONS: dataMigrations, DEV_MODE: "true", LOG_LEVEL: "error", OPERATOR_TOKEN: "test-operator-token", MAX_RUN_STATE_CHARS: String(12 * 1024 * 1024), OUTBOUND_ALLOW: "127.0.0.1", SERVICE_PROFILE: "test", ORG_MOVE_SETTLE_MS: "0" },
          queueConsumers: { "cdis-audit": AUDIT_CONSUMER },
          assets: { directory: "./test/fixtures/console-stand-in" },
        },
      }),
    ],
    test: {
      name,
      maxWorkers: options.maxWorkers ?? WORKER_FILES,
      isolate,
      include,
      exclude: [...WORKER_EXCLUDE, ...(options.exclude ?? [])],
      // A few tests make hundreds of requests or several exports; on two busy cores they can
      // need more than vitest's 5 s default, which is a wait, not a failure.
      testTimeout: 20_000,
      // fresh-runtime.ts first: every file starts on a runtime as fresh as a new one, migrated.
      // service-profile.ts registers the fakes SERVICE_PROFILE=test selects (src/platform/service-profiles.ts).
      setupFiles: ["./test/setup/fresh-runtime.ts", "./test/setup/prototype-sentinel.ts", "./test/setup/service-profile.ts"],
      // Loopback servers in Node (workerd cannot listen): an MLLP receiver for the hl7.send
      // tests, a redirector plus a forbidden target for the outbound-guard tests, a clearinghouse
      // plus on-demand Orthancs for the X12 and DICOMweb node tests, a device vendor stand-in, and
      // an independent FHIR server (Medplum's router) as the EHR for fetch and write-back, and an
      // OpenID Connect provider (oidc-provider) as an organization's IdP for single sign-on.
      globalSetup: ["./test/setup/mllp-server.ts", "./test/setup/outbound-peers.ts", "./test/setup/redirect-server.ts", "./test/setup/standards-servers.ts", "./test/setup/device-vendor-server.ts", "./test/setup/fhir-peer.ts", "./test/setup/oidc-idp.ts"],
    },
  });
  return {
    test: {
      projects: [
        // One workerd per vitest worker for every Worker file but ISOLATED_WORKER_FILES.
        workerProject("worker", false, WORKER_INCLUDE, { exclude: ISOLATED_WORKER_FILES }),
        workerProject("worker-isolated", true, ISOLATED_WORKER_FILES),
        // Two files that each find the runtime fresh and leave it as untidy as a file can, run in
        // one workerd in both orders by test/unit/suite/fresh-runtime.test.ts (never by npm test).
        workerProject("worker-runtime-check", false, ["test/fixtures/fresh-runtime/*.fixture.ts"], { maxWorkers: 1 }),
        // 20 s as in the Worker project: a test that spawns a process (the bridge, tsx, wrangler)
        // waits longer for a CPU shared with the Worker files beside it; a wait, not a failure.
        // The pure unit files, two at once in one module graph (isolate: false): most of a file's
        // time here was vitest importing its modules afresh (docs/testing.md).
        { test: { name: "unit", environment: "node", include: [...NODE_INCLUDE.unit], exclude: UNIT_PROCESS_FILES, isolate: false, maxWorkers: 2, testTimeout: 20_000 } },
        { test: { name: "unit-processes", environment: "node", include: UNIT_PROCESS_FILES, testTimeout: 20_000 } },
        // Real npm FHIR clients (and a browser's CORS) in Node against the service as `npm start`
        // runs it: the browser project's, started once for both (test/browser/setup/service.ts),
        // each interop file with organizations of its own. Run beside the browser project
        // (`npm run test:service`), files one at a time.
        { test: { name: "interop", environment: "node", include: [...NODE_INCLUDE.interop], globalSetup: [SERVICE_SETUP], fileParallelism: false, hookTimeout: 180_000, testTimeout: 60_000 } },
        { test: { name: "bridge", environment: "node", include: [...NODE_INCLUDE.bridge], testTimeout: 20_000 } },
        // The web console in Debian's Chromium against the service as `npm start` runs it: one
        // service and one browser for this project and interop (test/browser/setup/service.ts), files one at a time.
        {
          test: {
            name: "browser",
            environment: "node",
            include: [...NODE_INCLUDE.browser],
            // The OpenID Provider the single sign-on test signs in through (test/browser/sso.test.ts).
            globalSetup: [SERVICE_SETUP, "./test/setup/oidc-idp.ts"],
            // Two files at once: a browser file mostly waits (pages, deliveries, the service's
            // queues), and each works in organizations and pages of its own (docs/testing.md).
            maxWorkers: 2,
            hookTimeout: 180_000,
            testTimeout: 60_000,
          },
        },
      ],
    },
  };
});
