// The control database's tables, for drizzle-kit (migrations/control/): organizations, their
// API keys, console sessions and users, the shard each org lives on, and SMART clients and signing
// keys, and access policies. Nothing else lives there, and none of these tables exists on a data shard, so a store
// handed the wrong database fails loudly.
export * from "../features/tenancy/tables";
export * from "../features/identity/tables";
export * from "../features/smart/tables";
export * from "../features/access-policies/tables";
