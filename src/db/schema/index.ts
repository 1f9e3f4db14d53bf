// All D1 tables, one file per area. drizzle-kit reads this folder.
export * from "./tenancy";
export * from "./agents";
export * from "./pipelines";
export * from "./connectors";
export * from "./tools";
export * from "./messages";
export * from "./fhir";
