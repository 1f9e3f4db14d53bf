// The relay's durable record of deliveries (table relay_deliveries in the bridge's queue
// database, message-queue.ts). A transmit is stored before it is delivered; its outcome is stored
// before it is reported; the service's ack marks it reported. So after a kill -9: a row without an
// outcome is delivered (again: at least once, always under the same delivery id), a row with an
// unreported outcome is reported, and a transmit repeated by the service is answered from here
// when it was delivered; one whose stored outcome is a failure is the service's next attempt and
// is delivered again, and so is one of a higher reprocess round (the transmit's `round`: the
// operator asked for it to be sent again).
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
  private readonly resetFailed;
  private readonly resetRound;
  private readonly undeliveredRows;
  private readonly unreportedRows;
  private readonly prune;

  constructor(db: DatabaseSync) {
    this.insertRow = db.prepare("INSERT INTO relay_deliveries (delivery_id, transmit, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING delivery_id");
    this.getRow = db.prepare("SELECT delivery_id, transmit, outcome, reported_at FROM relay_deliveries WHERE delivery_id = ?");
    this.setOutcome = db.prepare("UPDATE relay_deliveries SET outcome = ?, delivered_at = ? WHERE delivery_id = ? AND outcome IS NULL");
    this.setReported = db.prepare("UPDATE relay_deliveries SET reported_at = ? WHERE delivery_id = ? AND outcome IS NOT NULL AND reported_at IS NULL");
    this.resetFailed = db.prepare(
      "UPDATE relay_deliveries SET transmit = ?, received_at = ?, outcome = NULL, delivered_at = NULL, reported_at = NULL WHERE delivery_id = ? AND outcome IS NOT NULL AND json_extract(outcome, '$.ok') = 0 RETURNING delivery_id",
    );
    this.resetRound = db.prepare(
      "UPDATE relay_deliveries SET transmit = ?, received_at = ?, outcome = NULL, delivered_at = NULL, reported_at = NULL WHERE delivery_id = ? AND outcome IS NOT NULL AND coalesce(json_extract(transmit, '$.round'), 0) < ? RETURNING delivery_id",
    );
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

  /**
   * The service tries again a delivery whose stored outcome is a failure (an AE, a refused
   * connection, a timeout): the failure is forgotten and the row is undelivered again, holding the
   * new transmit (durable on return). False when the row holds no failure (delivered, or none yet).
   */
  retry(transmit: Transmit): boolean {
    return this.resetFailed.get(JSON.stringify(transmit), new Date().toISOString(), transmit.delivery_id) !== undefined;
  }

  /**
   * The operator reprocessed a delivery (the transmit's round is above the stored one's): whatever
   * its stored outcome, the row is undelivered again, holding the new transmit (durable on return).
   * False when the round is not higher, or the row has no outcome yet (its delivery is under way).
   */
  reprocess(transmit: Transmit): boolean {
    return this.resetRound.get(JSON.stringify(transmit), new Date().toISOString(), transmit.delivery_id, transmit.round ?? 0) !== undefined;
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
