// The FHIR store's domain service for one organization and principal: every interaction
// (CRUD, vread, history, search, patch, operations) with versioning, preconditions and an
// AuditEvent per interaction. HTTP routes and other modules (FhirPort) both sit on it.
import { logger } from "../../platform/observability/log";
import type { Principal } from "../tenancy/auth/permissions";
import type { Env } from "../../platform/env";
import type { OrgData } from "../../platform/org-data";
import { configuredPublicBaseUrl } from "../../platform/http/public-url";
import {
  ApiError,
  badRequest,
  forbidden,
  gone,
  notFound,
  preconditionFailed,
  unprocessable,
} from "../../platform/errors";
import { type AccessAction, type AccessPolicy, permitAll } from "./access-policy";
import { type ConditionalAttempt, conditionKey, withConditionLeases } from "./conditional-lock";
import { type AuditInput, type Interaction, asStoredAudit, auditEvent } from "./audit";
import { flushAuditLog, noteAudits, readsAudits } from "./audit-log";
import { type StoredAudit, enqueueAudits } from "./audit-queue";
import { decodeHistoryCursor, encodeHistoryCursor } from "./history-cursor";
import { READ_ONLY_TYPES, isResourceType } from "./definitions";
import { applyPatch } from "./patch";
import type { Bundle, BundleEntry, ExportPage, ExportQuery, FhirExportReader, FhirPort, Resource, WriteResult } from "./port";
import { newResourceId } from "./resource-id";
import { type SearchTarget, executeSearch, matchStatement } from "./search/execute";
import { parseCount, parseSearch } from "./search/parse";
import { hydrateBinary, offloadBinary } from "./storage/binary";
import { exportCursor, exportRows, groupPatients } from "./storage/export-read";
import { checkResourceSize } from "./storage/resource-size";
import { seenVersions } from "./storage/seen-versions";
import { type AuditWrite, ResourceStore, type Row, type StoredVersion, toVersion } from "./storage/resource-store";
import { executeBundle } from "./transaction";
import { checkWrite } from "./write-check";
import { validateResource } from "./validate";
import { VersionConflict, lastWriterWins } from "./version-race";
import { type PlannedWrite, checkIfMatch, conditionalUpdateTarget, parseVersion, underIfMatch } from "./write-preconditions";

export interface FhirStoreOptions {
  /** Absolute base of the org's FHIR API (for fullUrl and links); defaults to a relative base. */
  baseUrl?: string;
  /** Lets background indexing of the pending audit log finish after the response (ExecutionContext.waitUntil). */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Who may read, search, write and export what (access-policy.ts); permits everything by default. */
  policy?: AccessPolicy;
  /** Purposes of use the request declared (v3 ActReason codes, the X-Purpose-Of-Use header): the policy decides with them. */
  purposeOfUse?: string[];
  /**
   * Holds the background indexing of the pending audit log until `releaseAuditFlush()`: work that
   * writes more after its FHIR writes (device ingest: the time series, the alert rules) would
   * otherwise wait behind the flush its own writes started on the same database.
   */
  holdAuditFlush?: boolean;
}

/**
 * $everything reads at most this many compartment members (the most recently updated), or this
 * many of each type when it reads chosen types; a read cut short says so (PatientEverything.incomplete
 * and an OperationOutcome entry), never silently.
 */
export const EVERYTHING_LIMIT = 5000;

/** A part of the compartment read cut short: one type's members, or (no type) the whole compartment's. */
export interface CompartmentShortfall {
  type?: string;
  /** Members read: the most recently updated. */
  included: number;
  /** Live members there are. */
  total: number;
}

export interface EverythingOptions {
  /** Only these types of the compartment (the Patient's own type included if wanted), each read up to `perType`. */
  types?: readonly string[];
  /** At most this many members of each type in `types` (EVERYTHING_LIMIT by default). */
  perType?: number;
}

export interface PatientEverything {
  /** The searchset: members, what they reference, and an OperationOutcome entry when a read was cut short. */
  bundle: Bundle;
  incomplete: CompartmentShortfall[];
}

const parsed = (content: string) => JSON.parse(content) as Resource;

/** The OperationOutcome entry of a compartment read cut short: what was left out, per type. */
function shortfallOutcome(incomplete: CompartmentShortfall[]): Resource {
  return {
    resourceType: "OperationOutcome",
    issue: incomplete.map((s) => ({
      severity: "warning",
      code: "too-costly",
      diagnostics: `Only the ${s.included} most recently updated of the ${s.total} ${s.type ?? "compartment"} resources of the patient are included`,
    })),
  };
}

export interface UpdateOptions {
  ifMatch?: string;
}

export class FhirService implements FhirPort, FhirExportReader {
  /** The organization's database: every statement of this store runs on it. */
  readonly db: D1Database;
  readonly store: ResourceStore;
  readonly baseUrl: string;
  readonly policy: AccessPolicy;

  constructor(
    readonly data: OrgData,
    readonly principal: Principal,
    readonly options: FhirStoreOptions = {},
  ) {
    // The store's database is the org's shard: a principal of another org would read the wrong one.
    if (data.orgId !== principal.orgId) throw new Error("FhirService: the principal's organization is not the data's");
    this.db = data.d1;
    this.store = new ResourceStore(this.db, principal.orgId);
    // Outside a request (pipelines, Durable Objects) the deployment's public base, so stored
    // attachment URLs and fullUrls are absolute as a request's are; relative only without one.
    this.baseUrl = options.baseUrl ?? `${configuredPublicBaseUrl(data.env) ?? ""}/fhir/r4/${principal.orgId}`;
    this.policy = options.policy ?? permitAll;
  }

  // ---- access policy

  /** A read the policy denies looks like an absent resource (404), as another organization's does. */
  private async mayRead(resource: Resource): Promise<void> {
    if (this.policy.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action: "read", resourceType: resource.resourceType, resource });
    if (!decision.permit) throw notFound(`${resource.resourceType}/${resource.id} not found`);
  }

  /** A write the policy denies is a 403 naming its reason. */
  private async mayWrite(action: "create" | "update" | "delete", resource: Resource): Promise<void> {
    if (this.policy.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action, resourceType: resource.resourceType, resource });
    if (!decision.permit) throw forbidden(`${action} of ${resource.resourceType}/${resource.id ?? "(new)"} denied: ${decision.reason}`);
  }

  /** The results of `action` the policy lets the principal see. */
  private visible<T>(action: AccessAction, items: T[], resourceOf: (item: T) => Resource): T[] | Promise<T[]> {
    return this.policy.permitsAll ? items : this.policy.filter(this.principal, action, items, resourceOf);
  }

  // ---- audit

  auditWrite(input: AuditInput, now = new Date().toISOString()): AuditWrite {
    const policy = this.policy.auditNote?.();
    return this.auditEventWrite(auditEvent(this.principal, policy ? { ...input, policy } : input, now), now);
  }

  private auditEventWrite(event: Resource, now: string): AuditWrite {
    return { kind: "audit", event: asStoredAudit(event, this.principal.orgId, now) };
  }

  /**
   * Stores an AuditEvent another module built (an agent's tool call, a management action): clients
   * cannot write AuditEvents. `pendingLog` appends it to the pending log at once instead of the
   * audit queue: for an organization being moved between shards, whose log the move carries over
   * (the queue's consumer would put it there too, but possibly only once the move is over).
   */
  async writeAuditEvent(event: Resource, options: { pendingLog?: boolean } = {}): Promise<void> {
    if (event.resourceType !== "AuditEvent") throw new Error(`writeAuditEvent takes an AuditEvent, got ${event.resourceType}`);
    const stored = this.auditEventWrite(event, new Date().toISOString()).event;
    if (options.pendingLog) await this.db.batch(this.store.appendAudits([stored]));
    else await this.sendAudit(stored);
  }

  /** The audit retention purge (an operator command): erases the AuditEvents recorded before `before`; returns how many. */
  async purgeAuditEvents(before: string): Promise<number> {
    await flushAuditLog(this.store);
    let erased = 0;
    for (let n = await this.store.purgeAuditsBefore(before); n > 0; n = await this.store.purgeAuditsBefore(before)) erased += n;
    return erased;
  }

  /** Records the audit of an interaction that writes nothing else (a read, a search, a refused write). */
  async recordAudit(input: AuditInput): Promise<void> {
    await this.sendAudit(this.auditWrite(input).event);
  }

  /** The audits `auditingTogether` holds while its interaction runs; undefined when none is running. */
  private heldAudits: StoredAudit[] | undefined;

  /**
   * Runs `run` with every audit it records held, then sends them in one queue call: an
   * interaction that an implementation guide audits too (a PDQm search: the REST AuditEvent and
   * the ITI-78 one) pays one send, not one per event. The audits go out whether `run` succeeds or
   * fails, and before its result is returned, so nothing is answered unaudited; a failed send
   * fails the interaction. Nested calls join the outer one.
   */
  async auditingTogether<T>(run: () => Promise<T>): Promise<T> {
    if (this.heldAudits) return run();
    const held: StoredAudit[] = [];
    this.heldAudits = held;
    const outcome = await run().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    this.heldAudits = undefined;
    await this.sendAudits(held);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async sendAudit(event: StoredAudit): Promise<void> {
    if (this.heldAudits) this.heldAudits.push(event);
    else await this.sendAudits([event]);
  }

  /**
   * Hands audits to the audit queue (audit-queue.ts) and returns once the queue holds them, so
   * no response goes out whose audit could still be lost. Where the queue is not bound (the
   * in-process benchmark) or refuses, the audits are appended to the pending log in D1 instead;
   * if that fails too the interaction fails: nothing is served unaudited.
   */
  private async sendAudits(events: StoredAudit[]): Promise<void> {
    if (events.length === 0) return;
    const queue = (this.data.env as Partial<Env>).AUDIT_QUEUE;
    if (queue) {
      try {
        return await enqueueAudits(queue, this.principal.orgId, events);
      } catch (e) {
        logger(this.data.env).error("audit queue send failed; appending to the pending log", { org: this.principal.orgId, error_message: String(e) });
      }
    }
    await this.db.batch(this.store.appendAudits(events));
    this.appendedAudits(events.length);
  }

  private flushHeld = false;

  /** Indexes the org's pending AuditEvents in the background once enough have been appended. */
  private appendedAudits(count: number): void {
    // While the org moves between shards its log only grows (the move catches appended rows up).
    if (this.data.movingTo !== null || !noteAudits(this.principal.orgId, count)) return;
    if (this.options.holdAuditFlush) this.flushHeld = true;
    else this.startAuditFlush();
  }

  /** Starts the flush `holdAuditFlush` held, if the writes since asked for one. */
  releaseAuditFlush(): void {
    if (!this.flushHeld) return;
    this.flushHeld = false;
    this.startAuditFlush();
  }

  private startAuditFlush(): void {
    const done = flushAuditLog(this.store).catch((e: unknown) => {
      logger(this.data.env).error("audit log flush failed", { org: this.principal.orgId, error_message: String(e) });
    });
    // Without a request context (in-process tools) the flush still happens, just not awaited here.
    this.options.waitUntil?.(done);
  }

  /** Makes every recorded AuditEvent visible before a read that can return AuditEvents. */
  private async auditsVisible(type: string | undefined, query: URLSearchParams = new URLSearchParams()): Promise<void> {
    if (this.data.movingTo === null && readsAudits(type, query)) await flushAuditLog(this.store);
  }

  /** Runs a non-writing interaction and audits its outcome, success or failure. */
  private async audited<T>(interaction: Interaction, what: { what?: string; query?: string }, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      await this.recordAudit({ interaction, ...what, outcome: "0" });
      return result;
    } catch (e) {
      await this.recordAudit({ interaction, ...what, ...failureOf(e) });
      throw e;
    }
  }

  /**
   * Commits planned writes, their audits and any further audits (a transaction's own) atomically;
   * a concurrent writer's collision is a 409.
   */
  async commit(plans: PlannedWrite[], audits: AuditInput[] = []): Promise<void> {
    const now = new Date().toISOString();
    const writes = [...plans.flatMap((p) => [p.write, this.auditWrite(p.audit, p.lastUpdated)]), ...audits.map((a) => this.auditWrite(a, now))];
    const statements = this.store.writeStatements(writes);
    if (statements.length === 0) return;
    try {
      await this.db.batch(statements);
      this.appendedAudits(writes.filter((w) => w.kind === "audit").length);
      this.sawCommitted(plans);
    } catch (e) {
      for (const plan of plans) seenVersions.forget(this.data.shard, this.principal.orgId, plan.type, plan.id);
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
      seenVersions.set(shard, this.principal.orgId, { resourceType: resource.resourceType, id: resource.id, versionId, lastUpdated, deleted: false, content });
      return;
    }
    for (const plan of plans) seenVersions.forget(shard, this.principal.orgId, plan.type, plan.id);
  }

  /**
   * The current version this isolate last saw, for an update to plan on without reading it: when
   * there is one and it satisfies If-Match (one that does not is checked against a fresh read). A
   * stale one makes the commit collide; it is then forgotten and the retry reads.
   */
  private seenCurrent(type: string, id: string, ifMatch: string | undefined): StoredVersion | undefined {
    const seen = seenVersions.get(this.data.shard, this.principal.orgId, type, id);
    return seen && (ifMatch === undefined || String(seen.versionId) === parseVersion(ifMatch)) ? seen : undefined;
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

  private async writeAudited(interaction: Interaction, what: string | undefined, run: () => Promise<WriteResult>): Promise<WriteResult> {
    try {
      return await run();
    } catch (e) {
      await this.recordAudit({ interaction, what, ...failureOf(e) });
      throw e;
    }
  }

  // ---- reads

  checkType(type: string): void {
    if (!isResourceType(type)) throw notFound(`Unknown resource type ${type}`, "UNKNOWN_TYPE");
  }

  async hydrate(content: string): Promise<Resource> {
    return hydrateBinary(this.data.blobs, JSON.parse(content) as Resource);
  }

  /** Many stored rows at once: only Binaries wait on R2, so a large compartment costs no promise per resource. */
  private async hydrateAll(contents: string[]): Promise<Resource[]> {
    const resources = contents.map(parsed);
    const binaries = resources.flatMap((r, i) => (r.resourceType === "Binary" ? [i] : []));
    await Promise.all(
      binaries.map(async (i) => {
        resources[i] = await hydrateBinary(this.data.blobs, resources[i]!);
      }),
    );
    return resources;
  }

  /** A read, then its AuditEvent handed to the audit queue: no D1 write on the way. */
  async readVersioned(type: string, id: string): Promise<Resource> {
    return this.audited("read", { what: `${type}/${id}` }, async () => {
      this.checkType(type);
      await this.auditsVisible(type);
      return this.readChecked(type, id);
    });
  }

  /** A read the policy judges on the resource itself, so its audit follows the decision. */
  private async readChecked(type: string, id: string): Promise<Resource> {
    const row = await this.store.current(type, id);
    if (!row) throw notFound(`${type}/${id} not found`);
    seenVersions.set(this.data.shard, this.principal.orgId, row);
    // A deleted row keeps its last content: a withheld resource is absent even once deleted, not gone.
    const resource = await this.hydrate(row.content);
    await this.mayRead(resource);
    if (row.deleted) throw gone(`${type}/${id} was deleted`);
    return resource;
  }

  read(type: string, id: string): Promise<Resource> {
    return this.readVersioned(type, id);
  }

  vread(type: string, id: string, versionId: string): Promise<Resource> {
    return this.audited("vread", { what: `${type}/${id}/_history/${versionId}` }, async () => {
      this.checkType(type);
      await this.auditsVisible(type);
      const n = Number(versionId);
      const v = Number.isInteger(n) && n > 0 ? await this.store.version(type, id, n) : undefined;
      if (!v) throw notFound(`${type}/${id}/_history/${versionId} not found`);
      if (v.deleted) throw gone(`${type}/${id} version ${versionId} is a deletion`);
      const resource = await this.hydrate(v.content);
      await this.mayRead(resource);
      return resource;
    });
  }

  search(type: string | undefined, query: string | URLSearchParams, options: { strict?: boolean } = {}): Promise<Bundle> {
    const params = new URLSearchParams(query);
    const label = `${type ?? ""}?${params.toString()}`;
    return this.audited(type ? "search-type" : "search-system", { query: label }, async () => {
      if (type) this.checkType(type);
      const req = parseSearch(type, params, options.strict);
      await this.auditsVisible(type, params);
      return executeSearch(this.searchTarget(), req, params);
    });
  }

  /** Where searches run; a policy that may deny filters their results. */
  private searchTarget(): SearchTarget {
    const target: SearchTarget = { db: this.db, orgId: this.principal.orgId, baseUrl: this.baseUrl };
    if (!this.policy.permitsAll) target.filter = (resources) => this.visible("search", resources, (r) => r);
    return target;
  }

  /** Ids of the resources a conditional URL selects (strict: a typo must not match everything). */
  async matchIds(type: string, query: string, limit = 2): Promise<string[]> {
    return (await this.matches(type, query, limit)).map((v) => v.id);
  }

  /** The current versions a conditional URL selects (never deleted ones). */
  async matches(type: string, query: string, limit = 2): Promise<StoredVersion[]> {
    const { results } = await this.matchStatement(type, query, limit).all<Row>();
    return results.map(toVersion);
  }

  /** The statement selecting (up to `limit`) current versions a conditional URL matches. */
  matchStatement(type: string, query: string, limit = 2): D1PreparedStatement {
    this.checkType(type);
    // "Patient?identifier=..." is accepted as well as "identifier=...".
    const params = new URLSearchParams(query.startsWith(`${type}?`) ? query.slice(type.length + 1) : query);
    const req = parseSearch(type, params, true);
    if (req.filters.length === 0) throw badRequest(`A conditional request needs search criteria, got "${query}"`);
    return matchStatement(this.searchTarget(), req, limit);
  }

  async history(scope: { type?: string; id?: string }, query: string | URLSearchParams = ""): Promise<Bundle> {
    const params = new URLSearchParams(query);
    const interaction: Interaction = scope.id ? "history-instance" : scope.type ? "history-type" : "history-system";
    return this.audited(interaction, { what: scope.id ? `${scope.type}/${scope.id}` : undefined, query: params.toString() }, async () => {
      if (scope.type) this.checkType(scope.type);
      await this.auditsVisible(scope.type, params);
      const count = parseCount(params.get("_count"));
      const since = params.get("_since") ?? undefined;
      if (since && Number.isNaN(Date.parse(since))) throw badRequest(`Invalid _since ${since}`);
      const before = decodeHistoryCursor(params.get("_cursor"), this.principal.orgId);
      const rows = await this.store.history({ ...scope, since: since && new Date(since).toISOString(), before, count: count + 1 });
      if (scope.id && rows.length === 0 && !before) {
        const current = await this.store.current(scope.type!, scope.id);
        if (!current) throw notFound(`${scope.type}/${scope.id} not found`);
      }
      const page = rows.slice(0, count);
      const path = [scope.type, scope.id].filter(Boolean).join("/");
      const link = (cursor?: string) => {
        const p = new URLSearchParams([...params].filter(([k]) => k !== "_cursor"));
        if (cursor) p.set("_cursor", cursor);
        return `${this.baseUrl}${path ? `/${path}` : ""}/_history${p.size ? `?${p}` : ""}`;
      };
      const last = page[page.length - 1];
      const links = [{ relation: "self", url: link(params.get("_cursor") ?? undefined) }];
      if (rows.length > count && last) links.push({ relation: "next", url: link(encodeHistoryCursor(this.principal.orgId, last)) });
      const entries = await Promise.all(page.map((v) => this.historyEntry(v)));
      // Deletions carry no content to judge; the versions before them are judged on theirs.
      const shown = new Set(
        await this.visible(
          "read",
          entries.filter((e) => e.resource),
          (e) => e.resource!,
        ),
      );
      const entry = entries.filter((e) => !e.resource || shown.has(e));
      return { resourceType: "Bundle", id: crypto.randomUUID(), type: "history", link: links, entry } satisfies Bundle;
    });
  }

  private async historyEntry(v: StoredVersion): Promise<BundleEntry> {
    const fullUrl = `${this.baseUrl}/${v.resourceType}/${v.id}`;
    const response = { status: v.deleted ? "410 Gone" : v.versionId === 1 ? "201 Created" : "200 OK", etag: `W/"${v.versionId}"`, lastModified: v.lastUpdated };
    if (v.deleted) return { fullUrl, request: { method: "DELETE", url: `${v.resourceType}/${v.id}` }, response };
    return {
      fullUrl,
      resource: await this.hydrate(v.content),
      request: { method: v.versionId === 1 ? "POST" : "PUT", url: v.versionId === 1 ? v.resourceType : `${v.resourceType}/${v.id}` },
      response,
    };
  }

  // ---- write planning (shared by single interactions and bundles)

  /** The body as a resource a client may write (known type, not server-only), or a 4xx. */
  writable(resource: unknown, type?: string): Resource {
    if (!resource || typeof resource !== "object" || Array.isArray(resource)) throw badRequest("The body must be a FHIR resource");
    const r = resource as Resource;
    if (typeof r.resourceType !== "string") throw badRequest("The resource has no resourceType");
    if (type && r.resourceType !== type) throw badRequest(`The body is a ${r.resourceType}, the URL names ${type}`);
    this.checkType(r.resourceType);
    if (READ_ONLY_TYPES.has(r.resourceType)) throw forbidden(`${r.resourceType} resources are written by the server only`);
    return r;
  }

  /** Validates and prepares one version of a resource (id, meta, Binary offload, index rows). */
  async planWrite(resource: Resource, id: string, current: StoredVersion | undefined, interaction: "create" | "update" | "patch"): Promise<PlannedWrite> {
    // Every client write path (a patch too, single or in a bundle) ends here: server-only types stay append-only.
    if (READ_ONLY_TYPES.has(resource.resourceType)) throw forbidden(`${resource.resourceType} resources are written by the server only`);
    const versionId = (current?.versionId ?? 0) + 1;
    const lastUpdated = new Date().toISOString();
    const meta = { ...(resource.meta ?? {}), versionId: String(versionId), lastUpdated };
    const stored: Resource & { id: string } = { ...resource, id, meta };
    const issues = validateResource(stored);
    if (issues.length) throw unprocessable(`${resource.resourceType} does not conform to the R4 definition`, issues);
    const created = !current || current.deleted;
    const replaces = created ? undefined : parsed(current.content);
    // An update is judged on the version it replaces as well as on the one it stores.
    if (replaces && !this.policy.permitsAll) await this.mayWrite("update", replaces);
    await this.mayWrite(created ? "create" : "update", stored);
    const persisted = (await offloadBinary(this.data.blobs, this.principal.orgId, stored)) as Resource & { id: string };
    const content = checkResourceSize(persisted);
    return {
      write: { kind: "put", resource: persisted, versionId, lastUpdated, method: created ? "POST" : "PUT", replaces, content },
      result: { resource: stored, outcome: created ? "created" : "updated" },
      resource: stored,
      type: resource.resourceType,
      id,
      versionId,
      lastUpdated,
      audit: { interaction, what: `${resource.resourceType}/${id}/_history/${versionId}`, outcome: "0" },
    };
  }

  /** 403 for a type clients may not delete (AuditEvent: append-only), in a bundle as alone. */
  deletable(type: string): void {
    if (READ_ONLY_TYPES.has(type)) throw forbidden(`${type} resources cannot be deleted`);
  }

  async planDelete(type: string, id: string, current: StoredVersion): Promise<PlannedWrite> {
    this.deletable(type);
    if (!this.policy.permitsAll) await this.mayWrite("delete", parsed(current.content));
    const versionId = current.versionId + 1;
    const lastUpdated = new Date().toISOString();
    return {
      write: { kind: "delete", type, id, versionId, lastUpdated },
      result: { resource: { resourceType: type, id }, outcome: "updated" },
      resource: null,
      type,
      id,
      versionId,
      lastUpdated,
      audit: { interaction: "delete", what: `${type}/${id}/_history/${versionId}`, outcome: "0" },
    };
  }

  /** Plans a create, or finds the existing match of ifNoneExist (then nothing is written). */
  async planCreate(resource: Resource, options: { ifNoneExist?: string; id?: string } = {}): Promise<PlannedWrite | WriteResult> {
    this.writable(resource);
    if (options.ifNoneExist) {
      const found = await this.matches(resource.resourceType, options.ifNoneExist);
      if (found.length > 1) throw preconditionFailed(`If-None-Exist matched ${found.length} resources`);
      if (found[0]) return this.existing(found[0]);
    }
    return this.planWrite(resource, options.id ?? newResourceId(), undefined, "create");
  }

  /** A conditional create's match, answered instead of a new resource: judged as the create it stands for. */
  async existing(match: StoredVersion): Promise<WriteResult> {
    const resource = await this.hydrate(match.content);
    await this.mayWrite("create", resource);
    return { resource, outcome: "existing" };
  }

  /** `known`: the current version when the caller already read it (null: there is none). */
  async planUpdate(
    resource: Resource & { id: string },
    options: UpdateOptions = {},
    interaction: "update" | "patch" = "update",
    known?: StoredVersion | null,
  ): Promise<PlannedWrite> {
    this.writable(resource);
    if (!/^[A-Za-z0-9\-.]{1,64}$/.test(resource.id)) throw badRequest(`Invalid resource id ${resource.id}`);
    const current = known === undefined ? await this.store.current(resource.resourceType, resource.id) : (known ?? undefined);
    checkIfMatch(options.ifMatch, current);
    return underIfMatch(await this.planWrite(resource, resource.id, current, interaction), options.ifMatch);
  }

  // ---- writes (FhirPort)

  async create(resource: Resource, options: { ifNoneExist?: string } = {}): Promise<WriteResult> {
    return this.writeAudited("create", undefined, () =>
      this.withConditions(async () => {
        const plan = await this.planCreate(resource, options);
        if ("write" in plan) await checkWrite(plan.resource, this);
        if (!("write" in plan)) {
          return {
            creates: [],
            finish: async () => {
              await this.recordAudit({ interaction: "create", what: `${plan.resource.resourceType}/${plan.resource.id}`, outcome: "0", outcomeDesc: "existing" });
              return plan;
            },
          };
        }
        return {
          creates: options.ifNoneExist ? [await conditionKey(resource.resourceType, options.ifNoneExist)] : [],
          finish: async () => {
            await this.commit([plan]);
            return plan.result;
          },
        };
      }),
    );
  }

  /**
   * Runs a write whose outcome depends on matches, leasing the conditions it creates under
   * (conditional-lock.ts); `conditions`: the keys of every condition it evaluates, when known.
   */
  withConditions<T>(attempt: () => Promise<ConditionalAttempt<T>>, conditions: string[] = []): Promise<T> {
    return withConditionLeases(this.data.env, this.principal.orgId, attempt, conditions);
  }

  /** Runs a write; without If-Match (`enabled`) one that lost a race for a version runs again (version-race.ts). */
  private lastWriterWins<T>(enabled: boolean, run: () => Promise<T>): Promise<T> {
    return lastWriterWins(this.data.env, this.principal.orgId, enabled, run);
  }

  async update(resource: Resource & { id: string }, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writeAudited("update", `${resource?.resourceType}/${resource?.id}`, () =>
      this.lastWriterWins(options.ifMatch === undefined, async () => {
        const seen = typeof resource?.resourceType === "string" && typeof resource.id === "string" ? this.seenCurrent(resource.resourceType, resource.id, options.ifMatch) : undefined;
        const plan = await this.planUpdate(resource, options, "update", seen);
        await checkWrite(plan.resource, this);
        await this.commit([plan]);
        return plan.result;
      }),
    );
  }

  async conditionalUpdate(query: string, resource: Resource, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writeAudited("update", `${resource?.resourceType}?${query}`, () =>
      this.lastWriterWins(options.ifMatch === undefined, () => this.conditionalUpdateOnce(query, resource, options)),
    );
  }

  private conditionalUpdateOnce(query: string, resource: Resource, options: UpdateOptions): Promise<WriteResult> {
    return this.withConditions(async () => {
      this.writable(resource);
      const found = await this.matches(resource.resourceType, query);
      const id = conditionalUpdateTarget(
        resource,
        found.map((v) => v.id),
      );
      return {
        creates: found.length === 0 ? [await conditionKey(resource.resourceType, query)] : [],
        finish: async () => {
          // A match is the current version; without one, the body's id may name an existing resource.
          const plan = await this.planUpdate({ ...resource, id }, options, "update", found[0]);
          await checkWrite(plan.resource, this);
          await this.commit([plan]);
          return plan.result;
        },
      };
    });
  }

  /** `operations`: a JSON Patch array, or a FHIRPath Patch Parameters resource. */
  async patch(type: string, id: string, operations: unknown, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writeAudited("patch", `${type}/${id}`, async () => {
      this.checkType(type);
      const current = await this.store.current(type, id);
      if (!current) throw notFound(`${type}/${id} not found`);
      if (current.deleted) throw gone(`${type}/${id} was deleted`);
      checkIfMatch(options.ifMatch, current);
      const original = await this.hydrate(current.content);
      const patched = applyPatch(original, operations);
      const plan = underIfMatch(await this.planWrite(patched, id, current, "patch"), options.ifMatch);
      await checkWrite(plan.resource, this);
      await this.commit([plan]);
      return plan.result;
    });
  }

  async delete(type: string, id: string, options: UpdateOptions = {}): Promise<void> {
    await this.writeAudited("delete", `${type}/${id}`, async () => {
      this.checkType(type);
      this.deletable(type);
      const current = await this.store.current(type, id);
      checkIfMatch(options.ifMatch, current);
      // Deleting what is absent or already deleted succeeds without a new version (idempotent).
      if (current && !current.deleted) await this.commit([underIfMatch(await this.planDelete(type, id, current), options.ifMatch)]);
      else await this.recordAudit({ interaction: "delete", what: `${type}/${id}`, outcome: "0", outcomeDesc: "nothing to delete" });
      return { resource: { resourceType: type, id }, outcome: "updated" };
    });
  }

  /** Deletes the single resource a search selects (412 when several match); it creates nothing, so it takes no lease. */
  async conditionalDelete(type: string, query: string): Promise<number> {
    this.checkType(type);
    const ids = await this.matchIds(type, query);
    if (ids.length > 1) throw preconditionFailed(`The conditional delete matched ${ids.length} resources`);
    if (ids.length === 1) await this.delete(type, ids[0]!);
    return ids.length;
  }

  async batch(bundle: Bundle): Promise<Bundle> {
    const interaction: Interaction = bundle?.type === "transaction" ? "transaction" : "batch";
    const audit: AuditInput = { interaction, query: `${interaction} of ${Array.isArray(bundle?.entry) ? bundle.entry.length : 0} entries`, outcome: "0" };
    // A batch's entries go through create/conditionalUpdate, which lease their own conditions.
    if (interaction === "batch") return this.audited(interaction, audit, () => executeBundle(this, bundle));
    // A transaction leases the conditions it creates under from its second match to its one
    // commit, and its own AuditEvent commits with its writes.
    // It commits all or nothing, so one that collided left nothing and may run again.
    const ifMatch = Array.isArray(bundle?.entry) && bundle.entry.some((e) => e?.request?.ifMatch !== undefined);
    try {
      return await this.lastWriterWins(!ifMatch, () => executeBundle(this, bundle, audit));
    } catch (e) {
      await this.recordAudit({ ...audit, ...failureOf(e) });
      throw e;
    }
  }

  // ---- operations

  async validate(resource: unknown, type?: string): Promise<Resource> {
    return this.audited("operation", { query: "$validate" }, async () => {
      if (!resource || typeof resource !== "object") throw badRequest("$validate needs a resource");
      let r = resource as Resource;
      if (r.resourceType === "Parameters" && Array.isArray(r.parameter)) {
        const p = (r.parameter as { name?: string; resource?: Resource }[]).find((x) => x.name === "resource");
        if (!p?.resource) throw badRequest("Parameters for $validate need a 'resource' parameter");
        r = p.resource;
      }
      if (type && r.resourceType !== type) throw badRequest(`The resource is a ${r.resourceType}, the URL names ${type}`);
      const issues = validateResource(r);
      return {
        resourceType: "OperationOutcome",
        issue: issues.length
          ? issues.map((i) => ({ severity: "error", code: "structure", diagnostics: i.message, expression: [i.path] }))
          : [{ severity: "information", code: "informational", diagnostics: "No issues found" }],
      };
    });
  }

  /**
   * Patient/$everything: the patient, its compartment, and what those resources reference.
   * AuditEvents about the patient are in the compartment but are the record's log, not its content.
   */
  async everything(patientId: string): Promise<Bundle> {
    return (await this.patientEverything(patientId)).bundle;
  }

  /** $everything with its shortfalls, optionally of chosen types only (what a summary reads: IPS $summary). */
  async patientEverything(patientId: string, options: EverythingOptions = {}): Promise<PatientEverything> {
    const query = options.types ? `$everything?_type=${options.types.join(",")}` : "$everything";
    return this.audited("operation", { what: `Patient/${patientId}`, query }, async () => {
      const patient = await this.store.current("Patient", patientId);
      if (!patient) throw notFound(`Patient/${patientId} not found`);
      if (patient.deleted) throw gone(`Patient/${patientId} was deleted`);
      if (!this.policy.permitsAll) {
        const decision = await this.policy.check({ principal: this.principal, action: "read", resourceType: "Patient", resource: parsed(patient.content), patient: patientId });
        if (!decision.permit) throw notFound(`Patient/${patientId} not found`);
      }
      const reads = options.types?.map((type) => ({ type, limit: options.perType ?? EVERYTHING_LIMIT })) ?? [{ type: undefined, limit: EVERYTHING_LIMIT }];
      const parts = await Promise.all(
        reads.map(async ({ type, limit }) => {
          // One row more than the cap tells a whole read from a cut one; only a cut one is read again
          // newest first (the sort a whole read does not need) and counted.
          const contents = await this.store.compartmentContents(patientId, limit + 1, { type });
          if (contents.length <= limit) return { contents };
          const [newest, total] = await Promise.all([this.store.compartmentContents(patientId, limit, { type, newest: true }), this.store.compartmentCount(patientId, type)]);
          const shortfall: CompartmentShortfall = { ...(type ? { type } : {}), included: limit, total };
          return { contents: newest, shortfall };
        }),
      );
      const incomplete = parts.flatMap((p) => (p.shortfall ? [p.shortfall] : []));
      const members = await this.visible("read", await this.hydrateAll(parts.flatMap((p) => p.contents)), (r) => r);
      const seen = new Set(members.map((m) => `${m.resourceType}/${m.id}`));
      // After a cut read, only what the members read reference; otherwise the index's own join.
      const from = incomplete.length ? { sources: members.map((m) => ({ type: m.resourceType, id: m.id! })) } : { types: options.types };
      const refs = (await this.store.referencedContents(patientId, from)).map(parsed).filter((r) => !seen.has(`${r.resourceType}/${r.id}`));
      const referenced = await this.visible("read", refs, (r) => r);
      const entry: BundleEntry[] = [...members, ...referenced].map((resource) => ({
        fullUrl: `${this.baseUrl}/${resource.resourceType}/${resource.id}`,
        resource,
        search: { mode: "match" as const },
      }));
      const total = entry.length;
      if (incomplete.length) entry.push({ resource: shortfallOutcome(incomplete), search: { mode: "outcome" } });
      return { bundle: { resourceType: "Bundle", id: crypto.randomUUID(), type: "searchset", total, entry } satisfies Bundle, incomplete };
    });
  }

  // ---- Bulk Data export (FhirExportReader): kick-offs and downloads are audited by the export feature

  async exportPage(q: ExportQuery): Promise<ExportPage> {
    const orgId = this.principal.orgId;
    // Audits still in the pending log belong in an AuditEvent export (the compliance export of a period).
    if (q.type === "AuditEvent" && !q.cursor) await this.auditsVisible("AuditEvent");
    const results = await exportRows(this.db, orgId, q);
    const rows = results.slice(0, q.limit);
    const last = rows.at(-1);
    // The cursor follows the last row read, shown or not: a page the policy thinned still moves on.
    const lines = (await this.visible("export", rows, (r) => parsed(r.content))).map((r) => r.content);
    return { lines, ...(results.length > q.limit && last ? { cursor: exportCursor(orgId, last) } : {}) };
  }

  groupPatients(groupId: string): Promise<string[]> {
    return groupPatients(this.db, this.principal.orgId, groupId);
  }
}

/** An interaction's failure as an AuditEvent outcome: 4 for a client error, 8 for a server one. */
export function failureOf(e: unknown): Pick<AuditInput, "outcome" | "outcomeDesc"> {
  if (e instanceof ApiError) return { outcome: e.status >= 500 ? "8" : "4", outcomeDesc: `${e.status} ${e.message}`.slice(0, 500) };
  return { outcome: "8", outcomeDesc: "internal error" };
}
