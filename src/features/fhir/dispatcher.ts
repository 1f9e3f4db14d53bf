// The FHIR interaction dispatcher for one organization and principal (the FhirService): read,
// vread, search, history, create, update, conditional update, patch, delete, conditional delete,
// batch and transaction, $validate, $everything, each checked by the access policy, audited
// (audit-trail.ts) and run on the repository (repository.ts), whatever the transport: the HTTP
// routes, other features and the entries of a Bundle (transaction.ts) all call these.
import { badRequest, gone, notFound } from "../../platform/errors";
import { configuredPublicBaseUrl } from "../../platform/http/public-url";
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../tenancy";
import { AccessChecks } from "./access-checks";
import { permitAll } from "./access-policy";
import type { AuditInput, Interaction } from "./audit";
import { AuditTrail, failureOf } from "./audit-trail";
import type { ConditionalAttempt } from "./conditional-lock";
import type { FhirDefinitions } from "./definitions";
import { patientEverything } from "./everything";
import { definitionsOf } from "./extensions";
import { historyBundle } from "./history";
import type { Bundle, ExportPage, ExportQuery, Resource, WriteResult } from "./port";
import { FhirRepository, type Lookup } from "./repository";
import { checkType } from "./resource-rules";
import { checkSearch } from "./search/check";
import { type SearchRequest, parseSearch } from "./search/parse";
import { scopeFilters, searchParamsOf } from "./search/policy-scope";
import type { EverythingOptions, PatientEverything, UpdateOptions } from "./service";
import { exportCursor } from "./storage/export-read";
import type { StoredVersion } from "./storage/resource-store";
import type { FhirStoreOptions } from "./store-options";
import { type BundleDispatcher, executeBundle } from "./transaction";
import { validationOutcome } from "./validation-outcome";
import { WriteInteractions } from "./write-interactions";
import { WritePlanner } from "./write-plan";
import type { PlannedWrite } from "./write-preconditions";

const parsed = (content: string) => JSON.parse(content) as Resource;

export class InteractionDispatcher implements BundleDispatcher {
  readonly baseUrl: string;
  private readonly definitions: FhirDefinitions;
  private readonly repository: FhirRepository;
  private readonly access: AccessChecks;
  private readonly audit: AuditTrail;
  private writePlanner?: WritePlanner;
  private writeInteractions?: WriteInteractions;

  constructor(
    readonly data: OrgData,
    readonly principal: Principal,
    private readonly options: FhirStoreOptions,
  ) {
    // The store's database is the org's shard: a principal of another org would read the wrong one.
    if (data.orgId !== principal.orgId) throw new Error("FhirService: the principal's organization is not the data's");
    // Outside a request (pipelines, Durable Objects) the deployment's public base, so stored
    // attachment URLs and fullUrls are absolute as a request's are; relative only without one.
    this.baseUrl = options.baseUrl ?? `${configuredPublicBaseUrl(data.env) ?? ""}/fhir/r4/${principal.orgId}`;
    this.definitions = definitionsOf(options.extensions);
    const policy = options.policy ?? permitAll;
    this.repository = new FhirRepository(data, this.definitions);
    this.access = new AccessChecks(policy, principal);
    this.audit = new AuditTrail(data, principal, { policy, waitUntil: options.waitUntil, holdAuditFlush: options.holdAuditFlush });
  }

  // Made on a store's first write: most stores (a request's reads and searches) never write.
  private get planner(): WritePlanner {
    this.writePlanner ??= new WritePlanner(this.repository, this.access);
    return this.writePlanner;
  }

  private get writes(): WriteInteractions {
    const { data, principal, options } = this;
    this.writeInteractions ??= new WriteInteractions({ env: data.env, orgId: principal.orgId, repository: this.repository, audit: this.audit, planner: this.planner, writeChecks: options.extensions.writeChecks, store: this, onChange: options.onChange });
    return this.writeInteractions;
  }

  // ---- reads

  read(type: string, id: string): Promise<Resource> {
    return this.audit.audited("read", { what: `${type}/${id}` }, async () => {
      checkType(type);
      await this.audit.visibleBefore(type);
      const row = await this.repository.current(type, id);
      if (!row) throw notFound(`${type}/${id} not found`);
      this.repository.remember(row);
      // A deleted row keeps its last content: a withheld resource is absent even once deleted, not gone.
      const resource = await this.repository.hydrate(row.content);
      await this.access.mayRead(resource);
      if (row.deleted) throw gone(`${type}/${id} was deleted`);
      return this.access.shown(resource);
    });
  }

  vread(type: string, id: string, versionId: string): Promise<Resource> {
    return this.audit.audited("vread", { what: `${type}/${id}/_history/${versionId}` }, async () => {
      checkType(type);
      await this.audit.visibleBefore(type);
      const n = Number(versionId);
      const v = Number.isInteger(n) && n > 0 ? await this.repository.version(type, id, n) : undefined;
      if (!v) throw notFound(`${type}/${id}/_history/${versionId} not found`);
      if (v.deleted) throw gone(`${type}/${id} version ${versionId} is a deletion`);
      const resource = await this.repository.hydrate(v.content);
      await this.access.mayRead(resource);
      return this.access.shown(resource);
    });
  }

  search(type: string | undefined, query: string | URLSearchParams, options: { strict?: boolean } = {}): Promise<Bundle> {
    const params = new URLSearchParams(query);
    const label = `${type ?? ""}?${params.toString()}`;
    return this.audit.audited(type ? "search-type" : "search-system", { query: label }, async () => {
      if (type) checkType(type);
      const req = parseSearch(this.definitions, type, params, options.strict);
      if (type) await this.access.maySearch(type, this.access.permitsAll ? undefined : searchParamsOf(this.definitions, req));
      // What the policy lets the principal see, as conditions of the query itself: pages and totals count only that.
      const scopes = await this.access.searchScopes(req.types);
      if (scopes.length) req.filters.push(...scopeFilters(this.definitions, scopes, req.types));
      await this.audit.visibleBefore(type, params);
      return this.repository.search(req, params, { baseUrl: this.baseUrl, filter: this.access.searchFilter(), redact: this.access.searchRedaction() });
    });
  }

  checkSearch(type: string | undefined, query: string | URLSearchParams): SearchRequest {
    return checkSearch(this.definitions, type, query);
  }

  async matchIds(type: string, query: string, limit = 2): Promise<string[]> {
    return (await this.matches(type, query, limit)).map((v) => v.id);
  }

  matches(type: string, query: string, limit = 2): Promise<StoredVersion[]> {
    return this.repository.matches(this.conditionOf(type, query), limit);
  }

  /** The read of what a conditional URL matches, parsed now (its 4xx now), read later with others (lookUp). */
  matchLookup(type: string, query: string): Lookup {
    return { kind: "match", request: this.conditionOf(type, query), limit: 2 };
  }

  /** A conditional URL as a strict search (a typo must not match everything) that names at least one criterion. */
  private conditionOf(type: string, query: string): SearchRequest {
    checkType(type);
    // "Patient?identifier=..." is accepted as well as "identifier=...".
    const params = new URLSearchParams(query.startsWith(`${type}?`) ? query.slice(type.length + 1) : query);
    const request = parseSearch(this.definitions, type, params, true);
    if (request.filters.length === 0) throw badRequest(`A conditional request needs search criteria, got "${query}"`);
    return request;
  }

  lookUp(lookups: Lookup[]): Promise<StoredVersion[][]> {
    return this.repository.lookUp(lookups);
  }

  currents(keys: { type: string; id: string }[]): Promise<StoredVersion[]> {
    return this.repository.currents(keys);
  }

  hydrate(content: string): Promise<Resource> {
    return this.repository.hydrate(content);
  }

  history(scope: { type?: string; id?: string }, query: string | URLSearchParams = ""): Promise<Bundle> {
    const params = new URLSearchParams(query);
    const interaction: Interaction = scope.id ? "history-instance" : scope.type ? "history-type" : "history-system";
    return this.audit.audited(interaction, { what: scope.id ? `${scope.type}/${scope.id}` : undefined, query: params.toString() }, async () => {
      if (scope.type) checkType(scope.type);
      await this.audit.visibleBefore(scope.type, params);
      return historyBundle(this.repository, this.access, this.baseUrl, scope, params);
    });
  }

  // ---- writes (write-interactions.ts)

  create(resource: Resource, options: { ifNoneExist?: string } = {}): Promise<WriteResult> {
    return this.writes.create(resource, options);
  }

  update(resource: Resource & { id: string }, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writes.update(resource, options);
  }

  conditionalUpdate(query: string, resource: Resource, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writes.conditionalUpdate(query, resource, options);
  }

  patch(type: string, id: string, operations: unknown, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.writes.patch(type, id, operations, options);
  }

  delete(type: string, id: string, options: UpdateOptions = {}): Promise<void> {
    return this.writes.delete(type, id, options);
  }

  conditionalDelete(type: string, query: string): Promise<number> {
    return this.writes.conditionalDelete(type, query);
  }

  async batch(bundle: Bundle): Promise<Bundle> {
    const interaction: Interaction = bundle?.type === "transaction" ? "transaction" : "batch";
    const audit: AuditInput = { interaction, query: `${interaction} of ${Array.isArray(bundle?.entry) ? bundle.entry.length : 0} entries`, outcome: "0" };
    // A batch's entries go through create/conditionalUpdate, which lease their own conditions.
    if (interaction === "batch") return this.audit.audited(interaction, audit, () => executeBundle(this, bundle));
    // A transaction leases the conditions it creates under from its second match to its one
    // commit, and its own AuditEvent commits with its writes.
    // It commits all or nothing, so one that collided left nothing and may run again.
    const ifMatch = Array.isArray(bundle?.entry) && bundle.entry.some((e) => e?.request?.ifMatch !== undefined);
    try {
      return await this.writes.lastWriterWins(!ifMatch, () => executeBundle(this, bundle, audit));
    } catch (e) {
      await this.audit.record({ ...audit, ...failureOf(e) });
      throw e;
    }
  }

  // ---- the steps of a write (single interactions and a transaction's entries)

  planCreate(resource: Resource, id: string): Promise<PlannedWrite> {
    return this.planner.planWrite(resource, id, undefined, "create");
  }

  planUpdate(resource: Resource & { id: string }, ifMatch: string | undefined, current: StoredVersion | null): Promise<PlannedWrite> {
    return this.planner.planUpdate(resource, ifMatch, "update", current);
  }

  planPatch(current: StoredVersion, operations: () => unknown, ifMatch: string | undefined): Promise<PlannedWrite> {
    return this.planner.planPatch(current, operations, ifMatch);
  }

  planDeletion(type: string, current: StoredVersion | undefined, ifMatch: string | undefined): Promise<PlannedWrite | undefined> {
    return this.planner.planDeletion(type, current, ifMatch);
  }

  existing(match: StoredVersion): Promise<WriteResult> {
    return this.planner.existing(match);
  }

  commit(plans: PlannedWrite[], audits: AuditInput[] = []): Promise<void> {
    return this.writes.commit(plans, audits);
  }

  withConditions<T>(attempt: () => Promise<ConditionalAttempt<T>>, conditions: string[] = []): Promise<T> {
    return this.writes.withConditions(attempt, conditions);
  }

  // ---- operations

  validate(resource: unknown, type?: string): Promise<Resource> {
    return this.audit.audited("operation", { query: "$validate" }, async () => validationOutcome(resource, type));
  }

  async everything(patientId: string): Promise<Bundle> {
    return (await this.patientEverything(patientId)).bundle;
  }

  patientEverything(patientId: string, options: EverythingOptions = {}): Promise<PatientEverything> {
    const query = options.types ? `$everything?_type=${options.types.join(",")}` : "$everything";
    return this.audit.audited("operation", { what: `Patient/${patientId}`, query }, () => patientEverything(this.repository, this.access, this.baseUrl, patientId, options));
  }

  // ---- Bulk Data export (FhirExportReader): kick-offs and downloads are audited by the export feature

  async exportPage(q: ExportQuery): Promise<ExportPage> {
    // Audits still in the pending log belong in an AuditEvent export (the compliance export of a period).
    if (q.type === "AuditEvent" && !q.cursor) await this.audit.visibleBefore("AuditEvent");
    const results = await this.repository.exportRows(q);
    const rows = results.slice(0, q.limit);
    const last = rows.at(-1);
    // The cursor follows the last row read, shown or not: a page the policy thinned still moves on.
    const visible = await this.access.visible("export", rows, (r) => parsed(r.content));
    // A policy that hides fields has each line shown as the principal may see it (the stored text where it hides nothing).
    const lines = this.access.redacts
      ? await Promise.all(
          visible.map(async (r) => {
            const resource = parsed(r.content);
            const shown = await this.access.shown(resource);
            return shown === resource ? r.content : JSON.stringify(shown);
          }),
        )
      : visible.map((r) => r.content);
    return { lines, ...(results.length > q.limit && last ? { cursor: exportCursor(this.principal.orgId, last) } : {}) };
  }

  groupPatients(groupId: string): Promise<string[]> {
    return this.repository.groupPatients(groupId);
  }

  // ---- audit (audit-trail.ts)

  recordAudit(input: AuditInput): Promise<void> {
    return this.audit.record(input);
  }

  writeAuditEvent(event: Resource, options: { pendingLog?: boolean } = {}): Promise<void> {
    return this.audit.write(event, options);
  }

  auditingTogether<T>(run: () => Promise<T>): Promise<T> {
    return this.audit.together(run);
  }

  releaseAuditFlush(): void {
    this.audit.releaseFlush();
  }
}
