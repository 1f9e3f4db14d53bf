// The Worker suite's service profile ("test"): vitest.config.ts sets SERVICE_PROFILE=test and
// test/setup/service-profile.ts registers this object, so the Worker, every Durable Object and the
// queue consumers reach the fakes through env, the way production reaches the real wiring. A test
// file chooses its fakes with one call in beforeAll (each file runs in an isolate of its own, so
// the choice lasts for that file); a file that chooses none runs on the real wiring.
import type { PlatformServices } from "../../src/device-platforms/wiring";
import type { AgentServices } from "../../src/features/agents/services";
import type { ServiceProfile } from "../../src/service-profile";

const chosen: { agents?: (orgId: string) => AgentServices; devicePlatforms?: PlatformServices } = {};

export const testServiceProfile: ServiceProfile = {
  agents: (_data, principal) => chosen.agents?.(principal.orgId),
  devicePlatforms: () => chosen.devicePlatforms,
};

/** This file's agents run on `factory`'s services (per org), wherever they are reached from. */
export function useAgentServices(factory: (orgId: string) => AgentServices): void {
  chosen.agents = factory;
}

/** This file's wearable platforms reach the device core and the vendors through `services`. */
export function useDevicePlatformServices(services: PlatformServices): void {
  chosen.devicePlatforms = services;
}
