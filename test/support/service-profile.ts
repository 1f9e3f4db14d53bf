// The Worker suite's service profile ("test"): vitest.config.ts sets SERVICE_PROFILE=test and
// test/setup/service-profile.ts registers this object, so the Worker, every Durable Object and the
// queue consumers reach the fakes through env, the way production reaches the real wiring. A test
// file chooses its fakes with one call in beforeAll, and the choice lasts for that file: the setup
// clears it before each file (test/support/fresh-runtime.ts), so a file that chooses none runs on
// the real wiring even where it shares the isolate with the files before it.
import type { PlatformAdapter } from "../../src/features/devices/platform-adapter";
import { type DevicePlatform, noOutcome } from "../../src/features/devices/platforms/platform";
import type { PlatformServices } from "../../src/features/devices/platforms/services";
import type { AgentServices } from "../../src/features/agents/services";
import { DEVICE_PLATFORMS } from "../../src/main/catalogs";
import type { ServiceProfile } from "../../src/main/service-profile";

const chosen: { agents?: (orgId: string) => AgentServices; devicePlatforms?: PlatformServices; devicePlatformCatalog?: readonly DevicePlatform[] } = {};

export const testServiceProfile: ServiceProfile = {
  agents: (_data, principal) => chosen.agents?.(principal.orgId),
  devicePlatforms: () => chosen.devicePlatforms,
  devicePlatformCatalog: () => chosen.devicePlatformCatalog,
};

/** Back to the real wiring (before each test file). */
export function clearServiceChoices(): void {
  delete chosen.agents;
  delete chosen.devicePlatforms;
  delete chosen.devicePlatformCatalog;
}

/** This file's agents run on `factory`'s services (per org), wherever they are reached from. */
export function useAgentServices(factory: (orgId: string) => AgentServices): void {
  chosen.agents = factory;
}

/** This file's wearable platforms reach the device core and the vendors through `services`. */
export function useDevicePlatformServices(services: PlatformServices): void {
  chosen.devicePlatforms = services;
}

/**
 * This file's deployment also syncs from `adapters`, stand-in vendors a sync pages (no OAuth, no
 * webhooks), after the catalog's platforms.
 */
export function useStandInPlatforms(...adapters: PlatformAdapter[]): void {
  chosen.devicePlatformCatalog = [...DEVICE_PLATFORMS, ...adapters.map((adapter): DevicePlatform => ({ vendor: adapter.kind, handleEvent: async () => noOutcome, ...adapter }))];
}
