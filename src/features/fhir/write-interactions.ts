// The FHIR write interactions (create, update, conditional update, patch, delete, conditional
// delete) and the steps a transaction shares with them: each write is planned by the write
// planner, held to the implementation guides' write checks, and committed with its AuditEvent in
// one D1 batch. A write that creates under a condition leases it first (conditional-lock.ts);
// without If-Match, one that lost a race for a version runs again (version-race.ts).
import type { Env } from "../../platform/env";
import { gone, notFound, preconditionFailed } from "../../platform/errors";
import { logger } from "../../platform/observability/log";
import type { AuditInput } from "./audit";
import { type FhirChangeHook, announce } from "./changes";
import type { AuditTrail } from "./audit-trail";
import { type ConditionalAttempt, conditionKey, withConditionLeases } from "./conditional-lock";
import type { Resource, WriteResult } from "./port";
import type { FhirRepository } from "./repository";
import { newResourceId } from "./resource-id";
import { checkType, deletable, writable } from "./resource-rules";
import type { FhirService, UpdateOptions } from "./service";
import type { StoredVersion } from "./storage/resource-store";
import { lastWriterWins } from "./version-race";
import { type WriteCheck, checkWrite } from "./write-check";
import type { WritePlanner } from "./write-plan";
import { type PlannedWrite, conditionalUpdateTarget, parseVersion } from "./write-preconditions";

export interface WriteParts {
  env: Env;
  orgId: string;
  repository: FhirRepository;
  audit: AuditTrail;
  planner: WritePlanner;
  writeChecks: readonly WriteCheck[];
  /** The store the writes belong to: its conditional matches, and what the guides' write checks read through. */
  store: FhirService;
  /** Told of every commit's stored versions (store-options.ts). */
  onChange?: FhirChangeHook;
}

export class WriteInteractions {
  constructor(private readonly parts: WriteParts) {}

  create(resource: Resource, options: { ifNoneExist?: string } = {}): Promise<WriteResult> {
    return this.parts.audit.auditedWrite("create", undefined, () =>
      this.withConditions(async () => {
        const plan = await this.planCreateOrMatch(resource, options.ifNoneExist);
        if (!("write" in plan)) {
          return {
            creates: [],
            finish: async () => {
              await this.parts.audit.record({ interaction: "create", what: `${plan.resource.resourceType}/${plan.resource.id}`, outcome: "0", outcomeDesc: "existing" });
              return plan;
            },
          };
        }
        await checkWrite(this.parts.writeChecks, plan.resource, this.parts.store);
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

  /** Plans a create, or finds the existing match of `ifNoneExist` (then nothing is written). */
  private async planCreateOrMatch(resource: Resource, ifNoneExist: string | undefined): Promise<PlannedWrite | WriteResult> {
    writable(resource);
    if (ifNoneExist) {
      const found = await this.parts.store.matches(resource.resourceType, ifNoneExist);
      if (found.length > 1) throw preconditionFailed(`If-None-Exist matched ${found.length} resources`);
      if (found[0]) return this.parts.planner.existing(found[0]);
    }
    return this.parts.planner.planWrite(resource, newResourceId(), undefined, "create");
  }

  update(resource: Resource & { id: string }, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.parts.audit.auditedWrite("update", `${resource?.resourceType}/${resource?.id}`, () =>
      this.lastWriterWins(options.ifMatch === undefined, async () => {
        const seen = typeof resource?.resourceType === "string" && typeof resource.id === "string" ? this.seenCurrent(resource.resourceType, resource.id, options.ifMatch) : undefined;
        return this.commitChecked(await this.parts.planner.planUpdate(resource, options.ifMatch, "update", seen));
      }),
    );
  }

  /**
   * The current version this isolate last saw, for an update to plan on without reading it: when
   * there is one and it satisfies If-Match (one that does not is checked against a fresh read). A
   * stale one makes the commit collide; it is then forgotten and the retry reads.
   */
  private seenCurrent(type: string, id: string, ifMatch: string | undefined): StoredVersion | undefined {
    const seen = this.parts.repository.seen(type, id);
    return seen && (ifMatch === undefined || String(seen.versionId) === parseVersion(ifMatch)) ? seen : undefined;
  }

  conditionalUpdate(query: string, resource: Resource, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.parts.audit.auditedWrite("update", `${resource?.resourceType}?${query}`, () =>
      this.lastWriterWins(options.ifMatch === undefined, () =>
        this.withConditions(async () => {
          writable(resource);
          const found = await this.parts.store.matches(resource.resourceType, query);
          const id = conditionalUpdateTarget(
            resource,
            found.map((v) => v.id),
          );
          return {
            creates: found.length === 0 ? [await conditionKey(resource.resourceType, query)] : [],
            // A match is the current version; without one, the body's id may name an existing resource.
            finish: async () => this.commitChecked(await this.parts.planner.planUpdate({ ...resource, id }, options.ifMatch, "update", found[0])),
          };
        }),
      ),
    );
  }

  patch(type: string, id: string, operations: unknown, options: UpdateOptions = {}): Promise<WriteResult> {
    return this.parts.audit.auditedWrite("patch", `${type}/${id}`, async () => {
      checkType(type);
      const current = await this.parts.repository.current(type, id);
      if (!current) throw notFound(`${type}/${id} not found`);
      if (current.deleted) throw gone(`${type}/${id} was deleted`);
      return this.commitChecked(await this.parts.planner.planPatch(current, () => operations, options.ifMatch));
    });
  }

  /** A single write: held to the guides' write checks, then committed with its AuditEvent. */
  private async commitChecked(plan: PlannedWrite): Promise<WriteResult> {
    await checkWrite(this.parts.writeChecks, plan.resource, this.parts.store);
    await this.commit([plan]);
    return plan.result;
  }

  async delete(type: string, id: string, options: UpdateOptions = {}): Promise<void> {
    await this.parts.audit.auditedWrite("delete", `${type}/${id}`, async () => {
      checkType(type);
      deletable(type);
      // Deleting what is absent or already deleted succeeds without a new version (idempotent).
      const plan = await this.parts.planner.planDeletion(type, await this.parts.repository.current(type, id), options.ifMatch);
      if (plan) await this.commit([plan]);
      else await this.parts.audit.record({ interaction: "delete", what: `${type}/${id}`, outcome: "0", outcomeDesc: "nothing to delete" });
    });
  }

  /** Deletes the single resource a search selects (412 when several match); it creates nothing, so it takes no lease. */
  async conditionalDelete(type: string, query: string): Promise<number> {
    checkType(type);
    const ids = await this.parts.store.matchIds(type, query);
    if (ids.length > 1) throw preconditionFailed(`The conditional delete matched ${ids.length} resources`);
    if (ids.length === 1) await this.delete(type, ids[0]!);
    return ids.length;
  }

  /** Commits planned writes, their audits and any further audits (a transaction's own) atomically; a concurrent writer's collision is a 409. */
  async commit(plans: PlannedWrite[], audits: AuditInput[] = []): Promise<void> {
    const now = new Date().toISOString();
    const events = [...plans.map((p) => this.parts.audit.stored(p.audit, p.lastUpdated)), ...audits.map((a) => this.parts.audit.stored(a, now))];
    if (!(await this.parts.repository.commit(plans, events))) return;
    this.parts.audit.appended(events.length);
    await announce(this.parts.onChange, plans, logger(this.parts.env));
  }

  /**
   * Runs a write whose outcome depends on matches, leasing the conditions it creates under
   * (conditional-lock.ts); `conditions`: the keys of every condition it evaluates, when known.
   */
  withConditions<T>(attempt: () => Promise<ConditionalAttempt<T>>, conditions: string[] = []): Promise<T> {
    return withConditionLeases(this.parts.env, this.parts.orgId, attempt, conditions);
  }

  /** Runs a write; without If-Match (`enabled`) one that lost a race for a version runs again (version-race.ts). */
  lastWriterWins<T>(enabled: boolean, run: () => Promise<T>): Promise<T> {
    return lastWriterWins(this.parts.env, this.parts.orgId, enabled, run);
  }
}
