import type { D1Migration } from "@cloudflare/vitest-plugin";
import type { ManualEnv } from "../src/platform/env";

// The Worker's bindings are Cloudflare.Env (src/main/env.generated.d.ts, with mainModule and
// the Durable Object classes); the tests add the hand-declared settings and their migrations.
declare global {
  namespace Cloudflare {
    interface Env extends ManualEnv {
      CONTROL_MIGRATIONS: D1Migration[];
      DATA_MIGRATIONS: D1Migration[];
    }
  }
}
