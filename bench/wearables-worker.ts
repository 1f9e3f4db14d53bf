// The bench's Worker: src/index.ts with the device core's credential seam answered for every
// organization by one Oura client (the bench has no device integration store to read), and no
// ingestion (the acknowledgement is what is measured). Never deployed.
import worker from "../src/index";
import { installPlatformServices } from "../src/device-platforms/wiring";

export * from "../src/index";

// bench/wearables.ts signs with the same secret.
const BENCH_OURA_SECRET = "bench-oura-secret";

installPlatformServices({
  credentialsFor: async (_data, kind) => (kind === "smart_ring" ? { clientId: "bench-oura", clientSecret: BENCH_OURA_SECRET } : undefined),
});

export default worker;
