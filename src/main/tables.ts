// Every feature's D1 tables on the data shards, for drizzle-kit (migrations/data/): each feature
// owns its tables file and imports it directly; nothing at runtime imports this index. The
// control database's tables (organizations, API keys) are in control-tables.ts.
export * from "../features/agents/tables";
export * from "../features/pipelines/tables";
export * from "../features/connectors/tables";
export * from "../features/agents/tools/custom/tables";
export * from "../features/inbound/tables";
export * from "../features/fhir/tables";
export * from "../features/alerts/tables";
export * from "../features/copilot/tables";
export * from "../features/devices/tables";
export * from "../features/consent/tables";
export * from "../features/ihe/tables";
export * from "../features/audit/tables";
export * from "../features/export/tables";
export * from "../features/devices/platforms/oauth/tables";
export * from "../features/devices/platforms/webhooks/tables";
export * from "../features/devices/platforms/companion/tables";
export * from "../features/destinations/tables";
export * from "../features/bridges/tables";
export * from "../features/event-webhooks/tables";
export * from "../features/subscriptions/tables";
