// What a service profile (src/platform/service-profiles.ts) may replace, per seam: each hook
// answers the implementation to use, or undefined for the real wiring. Only the Worker test suite
// registers one (test/support/service-profile.ts); production selects none.
import type { AgentServiceOptions, AgentServices } from "../features/agents/services";
import type { Principal } from "../features/tenancy/auth/permissions";
import type { PlatformServices } from "../device-platforms/wiring";
import type { Env } from "../platform/env";
import type { OrgData } from "../platform/org-data";

export interface ServiceProfile {
  /** The agents' services for a principal (tools, models, pipelines, audit). */
  agents(data: OrgData, principal: Principal, options?: AgentServiceOptions): AgentServices | undefined;
  /** The wearable platforms' seams to the device core and the vendors' network. */
  devicePlatforms(env: Env): PlatformServices | undefined;
}
