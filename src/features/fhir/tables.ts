// FHIR store tables: the current version of every resource, its full history, and the
// search index tables (one per search-parameter kind) rebuilt at every write. org_id leads
// every key and index, so no query plan can cross tenants.
import { sql } from "drizzle-orm";
import { type SQLiteColumn, index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Columns of one resource version, shared by the current table and the history. */
const version = () => ({
  orgId: text("org_id").notNull(),
  resourceType: text("resource_type").notNull(),
  id: text("id").notNull(),
  versionId: integer("version_id").notNull(),
  lastUpdated: text("last_updated").notNull(),
  deleted: integer("deleted").notNull().default(0),
  /** The resource JSON (Binary data lives in R2; see src/fhir/storage/binary.ts); '' for a deletion. */
  content: text("content").notNull(),
});

/** Current version; deleted rows stay (deleted = 1) so reads answer 410. */
export const fhirResources = sqliteTable(
  "fhir_resources",
  version(),
  (t) => [
    primaryKey({ columns: [t.orgId, t.resourceType, t.id] }),
    // Searches page through these in _lastUpdated order, ties by type and id, reading no more
    // than a bounded window (src/fhir/search/walk.ts): one type, or every type (system level).
    index("fhir_resources_type_updated_idx").on(t.orgId, t.resourceType, t.lastUpdated, t.id),
    index("fhir_resources_updated_idx").on(t.orgId, t.lastUpdated, t.resourceType, t.id),
  ],
);

/** Every version ever written, including deletions (content is empty for those). */
export const fhirHistory = sqliteTable(
  "fhir_history",
  { ...version(), method: text("method").notNull() },
  (t) => [
    primaryKey({ columns: [t.orgId, t.resourceType, t.id, t.versionId] }),
    index("fhir_history_type_updated_idx").on(t.orgId, t.resourceType, t.lastUpdated),
    index("fhir_history_updated_idx").on(t.orgId, t.lastUpdated),
  ],
);

/**
 * AuditEvents recorded but not yet indexed: one row per audit, written in the same batch as the
 * interaction it records (durable at once, a single append). They are indexed into the store in
 * bulk before anything can search or read AuditEvents, and in the background (src/fhir/audit-log.ts).
 */
export const fhirAuditPending = sqliteTable(
  "fhir_audit_pending",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    recorded: text("recorded").notNull(),
    /** The AuditEvent JSON, with its id and meta. */
    content: text("content").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] })],
);

// Each table has a value index (org, type, code, value...) for filters that drive a search, and
// an owner index (org, type, resource, code, values...) that covers probes and sort lookups, so
// checking one candidate row never reads the table itself.
const owner = {
  orgId: text("org_id").notNull(),
  resourceType: text("resource_type").notNull(),
  resourceId: text("resource_id").notNull(),
  code: text("code").notNull(),
};

/**
 * string parameters: value_norm is lower-cased and accent-free; value is the original. The value
 * index goes on with the resource id and the value (migration 0023), so a string filter's matches
 * (prefix, `:exact`, `:contains`) and its `_total=estimate` are read from the index alone, with no
 * lookup of the index row per match (test/unit/fhir/search-plans.test.ts).
 */
export const fhirIdxString = sqliteTable("fhir_idx_string", { ...owner, value: text("value").notNull(), valueNorm: text("value_norm").notNull() }, (t) => [
  index("fhir_idx_string_value_idx").on(t.orgId, t.resourceType, t.code, t.valueNorm, t.resourceId, t.value),
  index("fhir_idx_string_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.valueNorm, t.value),
]);

/**
 * token parameters; system is '' when absent so "|code" stays indexable. The value indexes of
 * tokens and references end with the resource id, so one system|code or one Type/id lists its
 * resources in id order: the walk reads that instead of every resource of the type (walk.ts).
 */
export const fhirIdxToken = sqliteTable("fhir_idx_token", { ...owner, system: text("system").notNull(), value: text("value").notNull() }, (t) => [
  index("fhir_idx_token_value_idx").on(t.orgId, t.resourceType, t.code, t.value, t.system, t.resourceId),
  index("fhir_idx_token_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.value, t.system),
]);

/** reference parameters, also serving _include, _revinclude, chaining and _has. */
export const fhirIdxReference = sqliteTable(
  "fhir_idx_reference",
  { ...owner, targetType: text("target_type").notNull(), targetId: text("target_id").notNull(), url: text("url").notNull() },
  (t) => [
    index("fhir_idx_reference_value_idx").on(t.orgId, t.resourceType, t.code, t.targetId, t.targetType, t.resourceId),
    index("fhir_idx_reference_target_idx").on(t.orgId, t.targetType, t.targetId, t.resourceType, t.code),
    index("fhir_idx_reference_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.targetType, t.targetId),
  ],
);

/**
 * The wide-row partial indexes' condition (queries repeat it: WIDE_DATE_ROW in sort-scan.ts): one
 * of several values, or a range over a day; a bound julianday cannot read counts as wide.
 */
const wide = (t: { single: SQLiteColumn; low: SQLiteColumn; high: SQLiteColumn }) =>
  sql`${t.single} = 0 OR IFNULL(julianday(${t.high}) - julianday(${t.low}), 2) > 1`;

/**
 * date parameters as UTC instants [low, high], the range the stored value's precision covers.
 * `single` is 1 when the row is its resource's only value for the parameter (0 otherwise, and by
 * default, which is always safe): such a row is its resource's sort value and answers the
 * resource's date filters by itself, so a sort-ordered scan can check it without probing.
 */
export const fhirIdxDate = sqliteTable(
  "fhir_idx_date",
  { ...owner, low: text("low").notNull(), high: text("high").notNull(), single: integer("single").notNull().default(0) },
  (t) => [
    // Sort-ordered scans (src/fhir/search/sort-scan.ts) walk these in the search's order, ties by
    // id: ascending sorts by (low, id), descending ones by (high DESC, id) read backwards, so the
    // id columns go the matching way. The trailing columns make the scans and date drivers covering.
    index("fhir_idx_date_low_idx").on(t.orgId, t.resourceType, t.code, t.low, t.resourceId, t.high, t.single),
    index("fhir_idx_date_high_idx").on(t.orgId, t.resourceType, t.code, t.high, sql`${t.resourceId} DESC`, t.low, t.single),
    index("fhir_idx_date_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.low, t.high),
    // Only "wide" rows (one of several values, or a range over a day): while none lies past a
    // point, a sort-ordered walk may start there (see farBound in src/fhir/search/sort-scan.ts).
    index("fhir_idx_date_wide_low_idx").on(t.orgId, t.resourceType, t.code, t.low).where(wide(t)),
    index("fhir_idx_date_wide_high_idx").on(t.orgId, t.resourceType, t.code, t.high).where(wide(t)),
  ],
);

/** number and quantity parameters (system/unit are '' for plain numbers). */
export const fhirIdxNumber = sqliteTable(
  "fhir_idx_number",
  { ...owner, value: real("value").notNull(), system: text("system").notNull(), unit: text("unit").notNull() },
  (t) => [
    index("fhir_idx_number_value_idx").on(t.orgId, t.resourceType, t.code, t.value),
    index("fhir_idx_number_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.value),
  ],
);

/** uri parameters. */
export const fhirIdxUri = sqliteTable("fhir_idx_uri", { ...owner, value: text("value").notNull() }, (t) => [
  index("fhir_idx_uri_value_idx").on(t.orgId, t.resourceType, t.code, t.value),
  index("fhir_idx_uri_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code, t.value),
]);

/**
 * composite parameters: the first component is a token (system|value), the second is kept in
 * whichever columns its kind needs (token: system2/value2; quantity: num + system2/value2 as unit;
 * date: low/high; string: value2 normalized).
 */
export const fhirIdxComposite = sqliteTable(
  "fhir_idx_composite",
  {
    ...owner,
    system1: text("system1").notNull(),
    value1: text("value1").notNull(),
    system2: text("system2").notNull(),
    value2: text("value2").notNull(),
    num: real("num"),
    low: text("low"),
    high: text("high"),
  },
  (t) => [
    index("fhir_idx_composite_value_idx").on(t.orgId, t.resourceType, t.code, t.value1),
    index("fhir_idx_composite_owner_idx").on(t.orgId, t.resourceType, t.resourceId, t.code),
  ],
);

/** Patient compartment membership (for $everything and bulk export's Patient-level export). */
export const fhirCompartment = sqliteTable(
  "fhir_compartment",
  { orgId: text("org_id").notNull(), patientId: text("patient_id").notNull(), resourceType: text("resource_type").notNull(), resourceId: text("resource_id").notNull() },
  (t) => [
    primaryKey({ columns: [t.orgId, t.patientId, t.resourceType, t.resourceId] }),
    index("fhir_compartment_owner_idx").on(t.orgId, t.resourceType, t.resourceId),
  ],
);
