// Registers the Worker suite's service profile, which SERVICE_PROFILE=test (vitest.config.ts) selects.
import { registerServiceProfile } from "../../src/platform/service-profiles";
import { testServiceProfile } from "../support/service-profile";

registerServiceProfile("test", testServiceProfile);
