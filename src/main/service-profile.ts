// What a service profile (src/platform/service-profiles.ts) may replace, per seam: each hook
// answers the implementation to use, or undefined for the real wiring. Only the Worker test suite
// registers one (test/support/service-profile.ts); production selects none.
import type { AgentServiceOptions, AgentServices } from "../features/agents/services";
import type { Principal } from "../features/tenancy/auth/permissions";
import type { OrgData } from "../platform/org-data";
import type { DevicePlatformProfile } from "./device-platform-services";

/** Besides the agents' services: the device platforms and their seams (device-platform-services.ts). */
export interface ServiceProfile extends DevicePlatformProfile {
  /** The agents' services for a principal (tools, models, pipelines, audit). */
  agents(data: OrgData, principal: Principal, options?: AgentServiceOptions): AgentServices | undefined;
}
