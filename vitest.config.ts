// Four test projects: the Worker suite inside workerd; pure domain modules in
// Node (they read fixture files); npm FHIR clients in Node against `wrangler dev`;
// and the bridge, which is a Node process.
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              // The fake servers the suite calls listen on 127.0.0.1; the guard refuses everything
              // else (127.0.0.2 stands in for a forbidden target in test/outbound/).
              miniflare: { bindings: { TEST_MIGRATIONS: migrations, DEV_MODE: "true", OPERATOR_TOKEN: "test-operator-token", MAX_RUN_STATE_CHARS: String(12 * 1024 * 1024), OUTBOUND_ALLOW: "127.0.0.1" } },
            }),
          ],
          test: {
            name: "worker",
            include: ["test/**/*.test.ts"],
            exclude: ["test/unit/**", "test/interop/**"],
            setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/prototype-sentinel.ts"],
            // Loopback servers in Node (workerd cannot listen): an MLLP receiver for the hl7.send
            // tests, a redirector plus a forbidden target for the outbound-guard tests, and an
            // independent FHIR server (Medplum's router) as the EHR for fetch and write-back.
            globalSetup: ["./test/setup/mllp-server.ts", "./test/setup/redirect-server.ts", "./test/setup/fhir-peer.ts"],
          },
        },
        { test: { name: "unit", environment: "node", include: ["test/unit/**/*.test.ts"] } },
        // Real npm FHIR clients in Node against the service under `wrangler dev --local`.
        { test: { name: "interop", environment: "node", include: ["test/interop/**/*.test.ts"], hookTimeout: 180_000, testTimeout: 60_000 } },
        { test: { name: "bridge", environment: "node", include: ["bridge/test/**/*.test.ts"] } },
      ],
    },
  };
});
