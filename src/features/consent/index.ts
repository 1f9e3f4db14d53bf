// The consent feature's public surface: what other features may import (nothing reaches its internals).
export type { ConsentAction, ConsentDecision, ConsentRequest } from "./decide";
export { type ConsentDecider, consentDecider } from "./service";
