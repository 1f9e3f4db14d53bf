// The outbound relay (README, "Outbound relay"): what bridge.ts starts when BRIDGE_CREDENTIAL is set.
export { AllowList, DEFAULT_ALLOW } from "./allow-list";
export { DELIVERY_ID_HEADER } from "./deliver";
export { RelayOutbox } from "./outbox";
export { Relay, type RelayOptions, type RelayState } from "./relay";
