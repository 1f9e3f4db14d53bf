// The store's AuditEvents for one organization and principal: one per interaction, success or
// failure. An interaction that writes nothing else sends its event to the audit queue (no D1
// write on a read); a write's events commit with it (the dispatcher asks `stored` for them), and
// every few hundred appended the pending log is indexed in the background (audit-log.ts).
import { logger } from "../../platform/observability/log";
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import type { OrgData } from "../../platform/org-data";
import type { Principal } from "../tenancy";
import type { AccessPolicy } from "./access-policy";
import { type AuditInput, type Interaction, asStoredAudit, auditEvent } from "./audit";
import { flushAuditLog, noteAudits, readsAudits } from "./audit-log";
import { type StoredAudit, enqueueAudits } from "./audit-queue";
import type { Resource } from "./port";
import { AuditRows } from "./storage/audit-rows";

export interface AuditTrailOptions {
  /** Its note (the Consents that decided) goes into each interaction's AuditEvent. */
  policy?: AccessPolicy;
  /** Lets the background flush finish after the response. */
  waitUntil?: (p: Promise<unknown>) => void;
  /** Holds the background flush until `releaseFlush()` (FhirStoreOptions.holdAuditFlush). */
  holdAuditFlush?: boolean;
}

/** An interaction's failure as an AuditEvent outcome: 4 for a client error, 8 for a server one. */
export function failureOf(e: unknown): Pick<AuditInput, "outcome" | "outcomeDesc"> {
  if (e instanceof ApiError) return { outcome: e.status >= 500 ? "8" : "4", outcomeDesc: `${e.status} ${e.message}`.slice(0, 500) };
  return { outcome: "8", outcomeDesc: "internal error" };
}

export class AuditTrail {
  private readonly rows: AuditRows;
  /** The audits `together` holds while its interaction runs; undefined when none is running. */
  private held: StoredAudit[] | undefined;
  private flushHeld = false;

  constructor(
    private readonly data: OrgData,
    private readonly principal: Principal,
    private readonly options: AuditTrailOptions = {},
  ) {
    this.rows = new AuditRows(data.d1, principal.orgId);
  }

  /** The AuditEvent of `input` as the store keeps it (recorded at `now`), with the policy's note. */
  stored(input: AuditInput, now = new Date().toISOString()): StoredAudit {
    const policy = this.options.policy?.auditNote?.();
    return asStoredAudit(auditEvent(this.principal, policy ? { ...input, policy } : input, now), this.principal.orgId, now);
  }

  /** Records the audit of an interaction that writes nothing else (a read, a search, a refused write). */
  async record(input: AuditInput): Promise<void> {
    await this.send(this.stored(input));
  }

  /**
   * Stores an AuditEvent another module built (an agent's tool call, a management action): clients
   * cannot write AuditEvents. `pendingLog` appends it to the pending log at once instead of the
   * audit queue: for an organization being moved between shards, whose log the move carries over
   * (the queue's consumer would put it there too, but possibly only once the move is over).
   */
  async write(event: Resource, options: { pendingLog?: boolean } = {}): Promise<void> {
    if (event.resourceType !== "AuditEvent") throw new Error(`writeAuditEvent takes an AuditEvent, got ${event.resourceType}`);
    const stored = asStoredAudit(event, this.principal.orgId, new Date().toISOString());
    if (options.pendingLog) await this.data.d1.batch(this.rows.appendAudits([stored]));
    else await this.send(stored);
  }

  /**
   * Runs `run` with every audit it records held, then sends them in one queue call: an
   * interaction that an implementation guide audits too (a PDQm search: the REST AuditEvent and
   * the ITI-78 one) pays one send, not one per event. The audits go out whether `run` succeeds or
   * fails, and before its result is returned, so nothing is answered unaudited; a failed send
   * fails the interaction. Nested calls join the outer one.
   */
  async together<T>(run: () => Promise<T>): Promise<T> {
    if (this.held) return run();
    const held: StoredAudit[] = [];
    this.held = held;
    const outcome = await run().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    this.held = undefined;
    await this.sendAll(held);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Runs a non-writing interaction and audits its outcome, success or failure. */
  async audited<T>(interaction: Interaction, what: { what?: string; query?: string }, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      await this.record({ interaction, ...what, outcome: "0" });
      return result;
    } catch (e) {
      await this.record({ interaction, ...what, ...failureOf(e) });
      throw e;
    }
  }

  /** Runs a write, auditing its failure (a write that commits audits itself, in its own batch). */
  async auditedWrite<T>(interaction: Interaction, what: string | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      await this.record({ interaction, what, ...failureOf(e) });
      throw e;
    }
  }

  /** Makes every recorded AuditEvent visible before a read that can return AuditEvents. */
  async visibleBefore(type: string | undefined, query: URLSearchParams = new URLSearchParams()): Promise<void> {
    if (this.data.movingTo === null && readsAudits(type, query)) await flushAuditLog(this.rows);
  }

  /** The audit retention purge (an operator command): erases the AuditEvents recorded before `before`; returns how many. */
  async purge(before: string): Promise<number> {
    await flushAuditLog(this.rows);
    let erased = 0;
    for (let n = await this.rows.purgeAuditsBefore(before); n > 0; n = await this.rows.purgeAuditsBefore(before)) erased += n;
    return erased;
  }

  /** Indexes the org's pending AuditEvents in the background once enough have been appended (by a commit or a fallback). */
  appended(count: number): void {
    // While the org moves between shards its log only grows (the move catches appended rows up).
    if (this.data.movingTo !== null || !noteAudits(this.principal.orgId, count)) return;
    if (this.options.holdAuditFlush) this.flushHeld = true;
    else this.startFlush();
  }

  /** Starts the flush `holdAuditFlush` held, if the writes since asked for one. */
  releaseFlush(): void {
    if (!this.flushHeld) return;
    this.flushHeld = false;
    this.startFlush();
  }

  private startFlush(): void {
    const done = flushAuditLog(this.rows).catch((e: unknown) => {
      logger(this.data.env).error("audit log flush failed", { org: this.principal.orgId, error_message: String(e) });
    });
    // Without a request context (in-process tools) the flush still happens, just not awaited here.
    this.options.waitUntil?.(done);
  }

  private async send(event: StoredAudit): Promise<void> {
    if (this.held) this.held.push(event);
    else await this.sendAll([event]);
  }

  /**
   * Hands audits to the audit queue (audit-queue.ts) and returns once the queue holds them, so
   * no response goes out whose audit could still be lost. Where the queue is not bound (the
   * in-process benchmark) or refuses, the audits are appended to the pending log in D1 instead;
   * if that fails too the interaction fails: nothing is served unaudited.
   */
  private async sendAll(events: StoredAudit[]): Promise<void> {
    if (events.length === 0) return;
    const queue = (this.data.env as Partial<Env>).AUDIT_QUEUE;
    if (queue) {
      try {
        return await enqueueAudits(queue, this.principal.orgId, events);
      } catch (e) {
        logger(this.data.env).error("audit queue send failed; appending to the pending log", { org: this.principal.orgId, error_message: String(e) });
      }
    }
    await this.data.d1.batch(this.rows.appendAudits(events));
    this.appended(events.length);
  }
}
