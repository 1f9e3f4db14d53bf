// Service profiles: alternative implementations of the composition root's seams (the agents'
// services, the wearable platforms' device-core seams) that a deployment selects by name with the
// SERVICE_PROFILE setting. Production sets none and runs the real wiring. The Worker suite sets
// SERVICE_PROFILE=test in its wrangler config and its setup file registers that profile (the
// profile's code lives under test/): the choice travels in env, so the Worker, every Durable
// Object and the queue consumers see the same profile, and no test swaps module state.
import { ApiError } from "./errors";
import { settingsOf } from "./settings";

const profiles = new Map<string, object>();

/** Registers a profile under `name`, once per isolate, before any request (a test setup file does). */
export function registerServiceProfile(name: string, profile: object): void {
  const existing = profiles.get(name);
  if (existing !== undefined && existing !== profile) throw new Error(`Service profile ${name} is already registered`);
  profiles.set(name, profile);
}

/** The profile `env` selects, or undefined when SERVICE_PROFILE is unset (production). */
export function serviceProfileOf<P extends object>(env: object): Partial<P> | undefined {
  const name = settingsOf(env).SERVICE_PROFILE;
  if (!name) return undefined;
  const profile = profiles.get(name);
  if (!profile) throw new ApiError(500, "CONFIGURATION_ERROR", `SERVICE_PROFILE ${JSON.stringify(name)} names no service profile registered in this build`);
  return profile as Partial<P>;
}
