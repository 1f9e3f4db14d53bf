// Every feature's D1 tables, for drizzle-kit (migrations/): each feature owns its tables file
// and imports it directly; nothing at runtime imports this index.
export * from "./features/tenancy/tables";
export * from "./features/agents/tables";
export * from "./features/pipelines/tables";
export * from "./features/connectors/tables";
export * from "./features/agents/tools/custom/tables";
export * from "./features/inbound/tables";
export * from "./features/fhir/tables";
export * from "./device-platforms/oauth/tables";
export * from "./device-platforms/webhooks/tables";
