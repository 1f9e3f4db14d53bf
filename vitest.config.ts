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
              miniflare: { bindings: { TEST_MIGRATIONS: migrations, DEV_MODE: "true" } },
            }),
          ],
          test: {
            name: "worker",
            include: ["test/**/*.test.ts"],
            exclude: ["test/unit/**", "test/interop/**"],
            setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/prototype-sentinel.ts"],
            // A loopback MLLP receiver in Node for the hl7.send tests (workerd cannot listen).
            globalSetup: ["./test/setup/mllp-server.ts"],
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
