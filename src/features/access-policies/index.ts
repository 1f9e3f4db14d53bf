// The access-policies feature's public surface: the policy the composition root adds to every
// store it builds for a principal (src/main/context.ts), and the management routes (src/main/app.ts).
// Docs: docs/fhir-store.md, "Access policies".
export { accessPolicyFor } from "./enforcement";
export { accessPolicyRoutes } from "./routes/access-policies";
export { POLICY_CACHE_TTL_MS } from "./cache";
