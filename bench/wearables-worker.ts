// The bench's Worker: src/index.ts with the device core's credential seam answered for every
// organization by one Oura client (the bench has no device integration store to read), and no
// ingestion (the acknowledgement is what is measured). It registers that wiring as the "bench"
// service profile, which bench/wearables.ts selects with SERVICE_PROFILE=bench. Never deployed.
import worker from "../src/index";
import { devicePlatformServices } from "../src/device-platform-services";
import { registerServiceProfile } from "../src/platform/service-profiles";
import type { ServiceProfile } from "../src/service-profile";

export * from "../src/index";

// bench/wearables.ts signs with the same secret.
const BENCH_OURA_SECRET = "bench-oura-secret";

const benchProfile: ServiceProfile = {
  agents: () => undefined,
  devicePlatforms: () => ({
    ...devicePlatformServices,
    credentialsFor: async (_data, kind) => (kind === "smart_ring" ? { clientId: "bench-oura", clientSecret: BENCH_OURA_SECRET } : undefined),
    linkStatus: async () => {},
    ingest: async () => {},
  }),
};
registerServiceProfile("bench", benchProfile);

export default worker;
