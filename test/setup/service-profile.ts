// Registers the Worker suite's service profile, which SERVICE_PROFILE=test (vitest.config.ts) selects.
import { registerServiceProfile } from "../../src/platform/service-profiles";
import { clearServiceChoices, testServiceProfile } from "../support/service-profile";

registerServiceProfile("test", testServiceProfile);
// Files share the isolate: what the previous file chose is not this one's.
clearServiceChoices();
