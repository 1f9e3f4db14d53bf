// A deployment selects a service profile by name (SERVICE_PROFILE); none selected means the real
// wiring, and a name no build registered is a configuration error, never a silent fallback.
import { describe, expect, it } from "vitest";
import { registerServiceProfile, serviceProfileOf } from "../../../src/platform/service-profiles";

describe("service profiles", () => {
  const profile = { agents: () => undefined };
  registerServiceProfile("unit-a", profile);

  it("answers the profile SERVICE_PROFILE names, and none when it is unset", () => {
    expect(serviceProfileOf({ SERVICE_PROFILE: "unit-a" })).toBe(profile);
    expect(serviceProfileOf({})).toBeUndefined();
  });

  it("refuses an unregistered name with CONFIGURATION_ERROR", () => {
    expect(() => serviceProfileOf({ SERVICE_PROFILE: "nobody" })).toThrow(expect.objectContaining({ status: 500, code: "CONFIGURATION_ERROR" }));
  });

  it("refuses a second, different profile under a registered name, and takes the same one again", () => {
    expect(() => registerServiceProfile("unit-a", profile)).not.toThrow();
    expect(() => registerServiceProfile("unit-a", {})).toThrow(/already registered/);
  });
});
