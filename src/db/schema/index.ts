// All D1 tables, one file per area. drizzle-kit reads this folder.
export * from "./tenancy";
export * from "./fhir";
