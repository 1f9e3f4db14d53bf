// The subscriptions' rows on the org's shard (tables.ts): each live Subscription's copy, status,
// destination, event counter and heartbeat schedule, and its numbered events.
import type { SubscriptionEventRow, SubscriptionStateRow } from "./tables";

export interface NewEvent {
  subscriptionId: string;
  occurredAt: string;
  focusType: string;
  focusId: string;
  focusVersion: string;
  action: "create" | "update" | "delete";
}

interface RawState {
  org_id: string;
  subscription_id: string;
  resource: string;
  status: string;
  destination_id: string | null;
  event_count: number;
  heartbeat_seconds: number | null;
  next_heartbeat_at: string | null;
  handshake_id: string | null;
  created_at: string;
  updated_at: string;
}

const toState = (r: RawState): SubscriptionStateRow => ({
  orgId: r.org_id,
  subscriptionId: r.subscription_id,
  resource: r.resource,
  status: r.status,
  destinationId: r.destination_id,
  eventCount: r.event_count,
  heartbeatSeconds: r.heartbeat_seconds,
  nextHeartbeatAt: r.next_heartbeat_at,
  handshakeId: r.handshake_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class SubscriptionStore {
  constructor(
    private readonly d1: D1Database,
    private readonly orgId: string,
  ) {}

  async all(): Promise<SubscriptionStateRow[]> {
    const { results } = await this.d1.prepare("SELECT * FROM subscription_states WHERE org_id = ?").bind(this.orgId).all<RawState>();
    return results.map(toState);
  }

  async get(id: string): Promise<SubscriptionStateRow | undefined> {
    const row = await this.d1.prepare("SELECT * FROM subscription_states WHERE org_id = ? AND subscription_id = ?").bind(this.orgId, id).first<RawState>();
    return row ? toState(row) : undefined;
  }

  /** Creates or updates a subscription's row from its stored version (the counter and handshake stay). */
  async save(id: string, fields: { resource: string; status: string; destinationId: string | null; heartbeatSeconds: number | null; nextHeartbeatAt: string | null }): Promise<void> {
    const now = new Date().toISOString();
    await this.d1
      .prepare(
        `INSERT INTO subscription_states (org_id, subscription_id, resource, status, destination_id, event_count, heartbeat_seconds, next_heartbeat_at, handshake_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, NULL, ?, ?)
         ON CONFLICT (org_id, subscription_id) DO UPDATE SET resource = excluded.resource, status = excluded.status, destination_id = excluded.destination_id,
           heartbeat_seconds = excluded.heartbeat_seconds, next_heartbeat_at = excluded.next_heartbeat_at, updated_at = excluded.updated_at`,
      )
      .bind(this.orgId, id, fields.resource, fields.status, fields.destinationId, fields.heartbeatSeconds, fields.nextHeartbeatAt, now, now)
      .run();
  }

  async setStatus(id: string, resource: string, status: string): Promise<void> {
    await this.d1.prepare("UPDATE subscription_states SET resource = ?, status = ?, updated_at = ? WHERE org_id = ? AND subscription_id = ?").bind(resource, status, new Date().toISOString(), this.orgId, id).run();
  }

  async setHandshake(id: string, messageId: string): Promise<void> {
    await this.d1.prepare("UPDATE subscription_states SET handshake_id = ? WHERE org_id = ? AND subscription_id = ?").bind(messageId, this.orgId, id).run();
  }

  async setNextHeartbeat(id: string, at: string | null): Promise<void> {
    await this.d1.prepare("UPDATE subscription_states SET next_heartbeat_at = ? WHERE org_id = ? AND subscription_id = ?").bind(at, this.orgId, id).run();
  }

  async remove(id: string): Promise<void> {
    await this.d1.batch([
      this.d1.prepare("DELETE FROM subscription_states WHERE org_id = ? AND subscription_id = ?").bind(this.orgId, id),
      this.d1.prepare("DELETE FROM subscription_events WHERE org_id = ? AND subscription_id = ?").bind(this.orgId, id),
    ]);
  }

  /** Numbers and logs events in one D1 batch (atomic): each gets its subscription's next number, in order. */
  async record(events: NewEvent[]): Promise<number[]> {
    if (events.length === 0) return [];
    const statements = events.flatMap((e) => [
      this.d1.prepare("UPDATE subscription_states SET event_count = event_count + 1 WHERE org_id = ? AND subscription_id = ? RETURNING event_count").bind(this.orgId, e.subscriptionId),
      this.d1
        .prepare(
          `INSERT INTO subscription_events (org_id, subscription_id, event_number, occurred_at, focus_type, focus_id, focus_version, action)
           SELECT org_id, subscription_id, event_count, ?, ?, ?, ?, ? FROM subscription_states WHERE org_id = ? AND subscription_id = ?`,
        )
        .bind(e.occurredAt, e.focusType, e.focusId, e.focusVersion, e.action, this.orgId, e.subscriptionId),
    ]);
    const results = await this.d1.batch<{ event_count: number }>(statements);
    return events.map((_, i) => results[i * 2]?.results?.[0]?.event_count ?? 0);
  }

  /** Events `since`..`until` (inclusive), oldest first. */
  async events(id: string, since: number, until: number, limit: number): Promise<SubscriptionEventRow[]> {
    const { results } = await this.d1
      .prepare("SELECT * FROM subscription_events WHERE org_id = ? AND subscription_id = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number LIMIT ?")
      .bind(this.orgId, id, since, until, limit)
      .all<{ org_id: string; subscription_id: string; event_number: number; occurred_at: string; focus_type: string; focus_id: string; focus_version: string; action: "create" | "update" | "delete" }>();
    return results.map((r) => ({ orgId: r.org_id, subscriptionId: r.subscription_id, eventNumber: r.event_number, occurredAt: r.occurred_at, focusType: r.focus_type, focusId: r.focus_id, focusVersion: r.focus_version, action: r.action }));
  }
}

/** Heartbeats due on a shard, across its orgs. */
export async function dueHeartbeats(d1: D1Database, now: string, limit = 500): Promise<{ orgId: string; subscriptionId: string }[]> {
  const { results } = await d1
    .prepare("SELECT org_id, subscription_id FROM subscription_states WHERE next_heartbeat_at IS NOT NULL AND next_heartbeat_at <= ? AND status IN ('requested', 'active', 'error') LIMIT ?")
    .bind(now, limit)
    .all<{ org_id: string; subscription_id: string }>();
  return results.map((r) => ({ orgId: r.org_id, subscriptionId: r.subscription_id }));
}
