// The control database's tables, for drizzle-kit (migrations/control/): organizations, their
// API keys, console sessions and users, their organization's single sign-on (identity provider,
// pending sign-ins), the shard each org lives on, SMART clients and signing keys, and access
// policies. Nothing else lives there, and none of these tables exists on a data shard, so a store
// handed the wrong database fails loudly.
export * from "../features/tenancy/tables";
export * from "../features/identity/tables";
export * from "../features/smart/tables";
export * from "../features/access-policies/tables";
