// All D1 tables, one file per area. drizzle-kit reads this folder.
export * from "./features/tenancy/tables";
export * from "./features/agents/tables";
export * from "./features/pipelines/tables";
export * from "./features/connectors/tables";
export * from "./features/agents/tools/custom/tables";
export * from "./features/inbound/tables";
export * from "./features/fhir/tables";
