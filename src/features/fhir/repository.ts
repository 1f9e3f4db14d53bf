// The FHIR store's repository for one organization: every read and write of its resources in D1
// (current and past versions, conditional matches, searches, history pages, the patient
// compartment, export pages, the commit of planned writes) and their Binary content in R2. The
// SQL itself is in storage/ and search/; nothing above this module holds a statement.
import { preconditionFailed } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import type { FhirDefinitions } from "./definitions";
import type { Bundle, ExportQuery, Resource } from "./port";
import { type SearchTarget, executeSearch, matchStatement } from "./search/execute";
import type { SearchRequest } from "./search/parse";
import { hydrateBinary, offloadBinary } from "./storage/binary";
import type { StoredAudit } from "./audit-queue";
import { type ExportRow, exportRows, groupPatients } from "./storage/export-read";
import { type HistoryQuery, ResourceStore, type Row, type StoredVersion, type VersionWrite, toVersion } from "./storage/resource-store";
import { seenVersions } from "./storage/seen-versions";
import { VersionConflict } from "./version-race";
import { type PlannedWrite, parseVersion } from "./write-preconditions";

/** One read of a batch of reads (lookUp): the current versions a condition matches, or one resource's current version. */
export type Lookup = { kind: "match"; request: SearchRequest; limit: number } | { kind: "current"; type: string; id: string };

const parsed = (content: string) => JSON.parse(content) as Resource;

export class FhirRepository {
  private readonly store: ResourceStore;
  private readonly db: D1Database;
  readonly orgId: string;

  constructor(
    private readonly data: OrgData,
    readonly definitions: FhirDefinitions,
  ) {
    this.db = data.d1;
    this.orgId = data.orgId;
    this.store = new ResourceStore(this.db, this.orgId, definitions);
  }

  // ---- versions

  current(type: string, id: string): Promise<StoredVersion | undefined> {
    return this.store.current(type, id);
  }

  version(type: string, id: string, versionId: number): Promise<StoredVersion | undefined> {
    return this.store.version(type, id, versionId);
  }

  /** Current versions, deleted ones included, by (type, id) pairs, in one query. */
  currents(keys: { type: string; id: string }[]): Promise<StoredVersion[]> {
    return this.store.currents(keys);
  }

  /** The current version this isolate last read or wrote (seen-versions.ts: a guess, never the truth). */
  seen(type: string, id: string): StoredVersion | undefined {
    return seenVersions.get(this.data.shard, this.orgId, type, id);
  }

  /** Remembers a version just read as current. */
  remember(version: StoredVersion): void {
    seenVersions.set(this.data.shard, this.orgId, version);
  }

  // ---- matches and searches

  /** The current versions (up to `limit`) a conditional request matches. */
  async matches(request: SearchRequest, limit: number): Promise<StoredVersion[]> {
    const { results } = await matchStatement(this.target(), request, limit).all<Row>();
    return results.map(toVersion);
  }

  /** Each lookup's versions, read in one round trip (a transaction's resolution). */
  async lookUp(lookups: Lookup[]): Promise<StoredVersion[][]> {
    if (lookups.length === 0) return [];
    const statements = lookups.map((l) => (l.kind === "match" ? matchStatement(this.target(), l.request, l.limit) : this.store.currentStatement(l.type, l.id)));
    return (await this.db.batch<Row>(statements)).map((r) => (r.results ?? []).map(toVersion));
  }

  /** The searchset of a parsed search: links under `baseUrl`, results thinned by `filter` (the access policy's). */
  search(request: SearchRequest, params: URLSearchParams, view: Pick<SearchTarget, "baseUrl" | "filter" | "redact">): Promise<Bundle> {
    return executeSearch({ ...this.target(), ...view }, request, params);
  }

  private target(): SearchTarget {
    return { db: this.db, orgId: this.orgId, baseUrl: "", definitions: this.definitions };
  }

  // ---- history and the patient compartment

  /** Newest first: an instance's versions, a type's, or the whole organization's. */
  history(query: HistoryQuery): Promise<StoredVersion[]> {
    return this.store.history(query);
  }

  compartmentContents(patientId: string, limit: number, options: { type?: string; newest?: boolean } = {}): Promise<string[]> {
    return this.store.compartmentContents(patientId, limit, options);
  }

  compartmentCount(patientId: string, type?: string): Promise<number> {
    return this.store.compartmentCount(patientId, type);
  }

  referencedContents(patientId: string, from: { types?: readonly string[]; sources?: { type: string; id: string }[] }): Promise<string[]> {
    return this.store.referencedContents(patientId, from);
  }

  // ---- export

  /** Up to `query.limit + 1` rows of an export page from its position. */
  exportRows(query: ExportQuery): Promise<ExportRow[]> {
    return exportRows(this.db, this.orgId, this.definitions, query);
  }

  groupPatients(groupId: string): Promise<string[]> {
    return groupPatients(this.db, this.orgId, groupId);
  }

  // ---- content

  hydrate(content: string): Promise<Resource> {
    return hydrateBinary(this.data.blobs, parsed(content));
  }

  /** Many stored rows at once: only Binaries wait on R2, so a large compartment costs no promise per resource. */
  async hydrateAll(contents: string[]): Promise<Resource[]> {
    const resources = contents.map(parsed);
    const binaries = resources.flatMap((r, i) => (r.resourceType === "Binary" ? [i] : []));
    await Promise.all(
      binaries.map(async (i) => {
        resources[i] = await hydrateBinary(this.data.blobs, resources[i]!);
      }),
    );
    return resources;
  }

  /** A Binary's data moved to R2 (the version's key), the resource as D1 keeps it. */
  offload(resource: Resource & { id: string }): Promise<Resource & { id: string }> {
    return offloadBinary(this.data.blobs, this.orgId, resource) as Promise<Resource & { id: string }>;
  }

  // ---- commit

  /**
   * Commits planned writes and AuditEvents atomically (one D1 batch); false when there was nothing
   * to write. A concurrent writer's collision is a 409 (VersionConflict), or a 412 for a write
   * planned under an If-Match that no longer holds.
   */
  async commit(plans: PlannedWrite[], audits: StoredAudit[]): Promise<boolean> {
    const writes: VersionWrite[] = [...plans.map((p) => p.write), ...audits.map((event) => ({ kind: "audit" as const, event }))];
    const statements = this.store.writeStatements(writes);
    if (statements.length === 0) return false;
    try {
      await this.db.batch(statements);
      this.sawCommitted(plans);
      return true;
    } catch (e) {
      for (const plan of plans) seenVersions.forget(this.data.shard, this.orgId, plan.type, plan.id);
      if (!/UNIQUE|PRIMARY KEY|constraint/i.test(String(e))) throw e;
      if (await this.lostPrecondition(plans)) {
        throw preconditionFailed("If-Match no longer holds: another request changed the resource at the same time");
      }
      throw new VersionConflict(plans.map((p) => `${p.type}/${p.id}`));
    }
  }

  /** Remembers a single write's new version for the next update by id (a bundle's writes are forgotten instead). */
  private sawCommitted(plans: PlannedWrite[]): void {
    const { shard } = this.data;
    const write = plans.length === 1 ? plans[0]!.write : undefined;
    if (write?.kind === "put") {
      const { resource, versionId, lastUpdated, content = JSON.stringify(resource) } = write;
      seenVersions.set(shard, this.orgId, { resourceType: resource.resourceType, id: resource.id, versionId, lastUpdated, deleted: false, content });
      return;
    }
    for (const plan of plans) seenVersions.forget(shard, this.orgId, plan.type, plan.id);
  }

  /** Whether a write planned under If-Match collided because its resource moved past that version. */
  private async lostPrecondition(plans: PlannedWrite[]): Promise<boolean> {
    for (const plan of plans) {
      if (plan.ifMatch === undefined) continue;
      const current = await this.store.current(plan.type, plan.id);
      if (String(current?.versionId) !== parseVersion(plan.ifMatch)) return true;
    }
    return false;
  }
}
