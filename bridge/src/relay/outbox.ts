// The relay's durable record of deliveries (table relay_deliveries in the bridge's queue
// database, message-queue.ts). A transmit is stored before it is delivered; its outcome is stored
// before it is reported; the service's ack marks it reported. So after a kill -9: a row without an
// outcome is delivered (again: at least once, always under the same delivery id), a row with an
// unreported outcome is reported, and a transmit repeated by the service is answered from here.
import type { DatabaseSync } from "node:sqlite";
import type { AttemptResult, Transmit } from "./protocol";

export interface OutboxRow {
  transmit: Transmit;
  outcome: AttemptResult | null;
  reported: boolean;
}

interface RawRow {
  delivery_id: string;
  transmit: string;
  outcome: string | null;
  reported_at: string | null;
}

const decode = (row: RawRow): OutboxRow => ({
  transmit: JSON.parse(row.transmit) as Transmit,
  outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as AttemptResult),
  reported: row.reported_at !== null,
});

export class RelayOutbox {
  private readonly insertRow;
  private readonly getRow;
  private readonly setOutcome;
  private readonly setReported;
  private readonly undeliveredRows;
  private readonly unreportedRows;
  private readonly prune;

  constructor(db: DatabaseSync) {
    this.insertRow = db.prepare("INSERT INTO relay_deliveries (delivery_id, transmit, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING delivery_id");
    this.getRow = db.prepare("SELECT delivery_id, transmit, outcome, reported_at FROM relay_deliveries WHERE delivery_id = ?");
    this.setOutcome = db.prepare("UPDATE relay_deliveries SET outcome = ?, delivered_at = ? WHERE delivery_id = ? AND outcome IS NULL");
    this.setReported = db.prepare("UPDATE relay_deliveries SET reported_at = ? WHERE delivery_id = ? AND outcome IS NOT NULL AND reported_at IS NULL");
    this.undeliveredRows = db.prepare("SELECT delivery_id, transmit, outcome, reported_at FROM relay_deliveries WHERE outcome IS NULL ORDER BY received_at");
    this.unreportedRows = db.prepare("SELECT delivery_id, transmit, outcome, reported_at FROM relay_deliveries WHERE outcome IS NOT NULL AND reported_at IS NULL ORDER BY delivered_at");
    this.prune = db.prepare("DELETE FROM relay_deliveries WHERE reported_at IS NOT NULL AND reported_at < ?");
  }

  /** Stores a new transmit (durable on return: synchronous=FULL); false when its delivery id is already held. */
  add(transmit: Transmit): boolean {
    return this.insertRow.get(transmit.delivery_id, JSON.stringify(transmit), new Date().toISOString()) !== undefined;
  }

  get(deliveryId: string): OutboxRow | undefined {
    const row = this.getRow.get(deliveryId) as RawRow | undefined;
    return row ? decode(row) : undefined;
  }

  /** Stores a delivery's outcome (the first one stands). */
  complete(deliveryId: string, outcome: AttemptResult): void {
    this.setOutcome.run(JSON.stringify(outcome), new Date().toISOString(), deliveryId);
  }

  /** The service acknowledged the outcome. */
  reported(deliveryId: string): void {
    this.setReported.run(new Date().toISOString(), deliveryId);
  }

  undelivered(): OutboxRow[] {
    return (this.undeliveredRows.all() as unknown as RawRow[]).map(decode);
  }

  unreported(): OutboxRow[] {
    return (this.unreportedRows.all() as unknown as RawRow[]).map(decode);
  }

  /** Forgets reported deliveries older than `before` (kept until then to answer repeats). */
  pruneReported(before: Date): number {
    return Number(this.prune.run(before.toISOString()).changes);
  }
}
