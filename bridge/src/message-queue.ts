// The bridge's persistent queue (node:sqlite, WAL, synchronous=FULL): pending messages in
// arrival order, the (protocol, sender, control id) index that makes resends idempotent, and
// the error queue. It knows protocols only as names: what a sender or a control id is, the
// protocol adapter decides.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";

export interface IncomingMessage {
  /** The protocol adapter's name (e.g. "hl7v2"): the forwarding target and part of every key. */
  protocol: string;
  /** Sender identity for FIFO and idempotency within the protocol (HL7: MSH-3|MSH-4, or the connection). */
  sender: string | null;
  controlId: string | null;
  messageType: string | null;
  raw: string;
  receivedAt: string;
  listener: string;
  remoteAddress: string;
}

export interface QueuedMessage extends IncomingMessage {
  seq: number;
  id: string;
}

export interface ErrorEntry extends QueuedMessage {
  origin: "local" | "worker";
  errorCode: string;
  errorMessage: string;
  failedAt: string;
}

export type EnqueueResult = { status: "enqueued" | "duplicate"; id: string };
export type Settlement =
  | { id: string; status: "accepted" | "duplicate"; serverMessageId: string | null }
  | { id: string; status: "rejected"; code: string; message: string };
export type RetryResult = "requeued" | "not_found" | "not_retryable" | "conflict";

const TABLE = `
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'error')),
  protocol TEXT NOT NULL DEFAULT 'hl7v2',
  sender TEXT,
  control_id TEXT,
  message_type TEXT,
  raw TEXT NOT NULL,
  received_at TEXT NOT NULL,
  listener TEXT NOT NULL,
  remote_address TEXT NOT NULL,
  error_origin TEXT,
  error_code TEXT,
  error_message TEXT,
  server_message_id TEXT,
  settled_at TEXT
);
`;

/**
 * Bridges before the protocol column keyed on (sender, control_id) alone and read pending rows
 * by seq alone: those indexes are dropped (their rows are all HL7 v2, which the column's
 * default says) and replaced by the protocol-keyed ones.
 */
const OLD_INDEXES = ["messages_sender_control", "messages_pending"];

const INDEXES = `
-- A message rejected into the error queue must not stop a corrected resend with the same control id.
CREATE UNIQUE INDEX IF NOT EXISTS messages_key ON messages (protocol, sender, control_id) WHERE state <> 'error';
CREATE INDEX IF NOT EXISTS messages_pending_by_protocol ON messages (protocol, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS messages_error ON messages (seq) WHERE state = 'error';
CREATE INDEX IF NOT EXISTS messages_done ON messages (settled_at) WHERE state = 'done';
`;

/**
 * The relay's deliveries (relay/outbox.ts): each `transmit` from the service, stored before it is
 * delivered, keyed by the service's delivery id; its outcome once delivered, and when the
 * service acknowledged that outcome.
 */
const RELAY_TABLE = `
CREATE TABLE IF NOT EXISTS relay_deliveries (
  delivery_id TEXT PRIMARY KEY,
  transmit TEXT NOT NULL,
  received_at TEXT NOT NULL,
  outcome TEXT,
  delivered_at TEXT,
  reported_at TEXT
);
CREATE INDEX IF NOT EXISTS relay_undelivered ON relay_deliveries (received_at) WHERE outcome IS NULL;
CREATE INDEX IF NOT EXISTS relay_unreported ON relay_deliveries (delivered_at) WHERE outcome IS NOT NULL AND reported_at IS NULL;
CREATE INDEX IF NOT EXISTS relay_reported ON relay_deliveries (reported_at) WHERE reported_at IS NOT NULL;
`;

const COLUMNS = "seq, id, protocol, sender, control_id, message_type, raw, received_at, listener, remote_address";

interface PendingWrite {
  apply: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes from intake are group-committed: everything asked for during one turn of the event
 * loop goes into one transaction and one fsync, and every promise resolves only after COMMIT
 * returned, so a caller that ACKs on resolution ACKs only what is durable.
 */
export class MessageQueue {
  private readonly db: DatabaseSync;
  private writes: PendingWrite[] = [];
  private flushScheduled = false;
  private readonly insert;
  private readonly findDuplicate;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.db = new DatabaseSync(path.join(dataDir, "bridge-queue.sqlite"));
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    this.migrate();
    this.insert = this.db.prepare(
      `INSERT INTO messages (id, state, protocol, sender, control_id, message_type, raw, received_at, listener,
         remote_address, error_origin, error_code, error_message, settled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
    );
    this.findDuplicate = this.db.prepare(
      "SELECT id FROM messages WHERE protocol = ? AND sender = ? AND control_id = ? AND state <> 'error'",
    );
  }

  /** Creates the schema, or brings a queue file of an older bridge up to it, in one transaction. */
  private migrate(): void {
    this.transaction(() => {
      this.db.exec(TABLE);
      const columns = this.db.prepare("SELECT name FROM pragma_table_info('messages')").all() as { name: string }[];
      if (!columns.some((c) => c.name === "protocol")) {
        this.db.exec("ALTER TABLE messages ADD COLUMN protocol TEXT NOT NULL DEFAULT 'hl7v2'");
      }
      for (const name of OLD_INDEXES) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
      this.db.exec(INDEXES);
      this.db.exec(RELAY_TABLE);
    });
  }

  /** The queue's database, for the relay's table in it (relay/outbox.ts). */
  get database(): DatabaseSync {
    return this.db;
  }

  /** Durably stores a message for forwarding, unless its (protocol, sender, control id) is already held. */
  enqueue(message: IncomingMessage): Promise<EnqueueResult> {
    return this.write(() => {
      const id = crypto.randomUUID();
      const inserted = this.insert.get(...this.values(id, "pending", message, null));
      if (inserted) return { status: "enqueued", id };
      const existing = this.findDuplicate.get(message.protocol, message.sender, message.controlId) as
        | { id: string }
        | undefined;
      if (!existing) throw new Error("insert conflicted but no message holds this protocol, sender and control id");
      return { status: "duplicate", id: existing.id };
    });
  }

  /** Durably stores a message the bridge itself refused (unreadable header, missing control id). */
  storeRejected(message: IncomingMessage, code: string, reason: string): Promise<string> {
    return this.write(() => {
      const id = crypto.randomUUID();
      this.insert.get(...this.values(id, "error", message, { code, reason }));
      return id;
    });
  }

  private values(
    id: string,
    state: "pending" | "error",
    m: IncomingMessage,
    error: { code: string; reason: string } | null,
  ): SQLInputValue[] {
    return [
      id,
      state,
      m.protocol,
      m.sender,
      m.controlId,
      m.messageType,
      m.raw,
      m.receivedAt,
      m.listener,
      m.remoteAddress,
      error ? "local" : null,
      error?.code ?? null,
      error?.reason ?? null,
      error ? new Date().toISOString() : null,
    ];
  }

  private write<T>(apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.writes.push({ apply, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate, not a microtask: lets every socket read of this loop turn join the commit.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const writes = this.writes;
    this.writes = [];
    const results: unknown[] = [];
    try {
      this.db.exec("BEGIN IMMEDIATE");
      for (const w of writes) results.push(w.apply());
      this.db.exec("COMMIT");
    } catch (error) {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      for (const w of writes) w.reject(error);
      return;
    }
    for (const [i, w] of writes.entries()) w.resolve(results[i]);
  }

  /** One protocol's oldest pending messages, in arrival order, up to a count and a size in bytes of raw text. */
  nextBatch(protocol: string, maxMessages: number, maxBytes: number): QueuedMessage[] {
    const rows = this.db
      .prepare(`SELECT ${COLUMNS} FROM messages WHERE state = 'pending' AND protocol = ? ORDER BY seq LIMIT ?`)
      .all(protocol, maxMessages) as unknown as Row[];
    const batch: QueuedMessage[] = [];
    let bytes = 0;
    for (const row of rows) {
      const size = Buffer.byteLength(row.raw);
      if (batch.length > 0 && bytes + size > maxBytes) break;
      batch.push(toMessage(row));
      bytes += size;
    }
    return batch;
  }

  /**
   * Records the Worker's verdicts in one transaction; ids not listed stay pending. Without an
   * fsync of its own: a verdict lost in a crash only means a resend, which the Worker answers
   * "duplicate", and the next intake commit (synchronous=FULL) flushes the WAL up to here anyway.
   */
  settle(settlements: Settlement[]): void {
    const now = new Date().toISOString();
    const done = this.db.prepare(
      "UPDATE messages SET state = 'done', server_message_id = ?, settled_at = ? WHERE id = ? AND state = 'pending'",
    );
    const failed = this.db.prepare(
      `UPDATE messages SET state = 'error', error_origin = 'worker', error_code = ?, error_message = ?, settled_at = ?
       WHERE id = ? AND state = 'pending'`,
    );
    this.db.exec("PRAGMA synchronous = NORMAL");
    try {
      this.transaction(() => {
        for (const s of settlements) {
          if (s.status === "rejected") failed.run(s.code, s.message, now, s.id);
          else done.run(s.serverMessageId, now, s.id);
        }
      });
    } finally {
      this.db.exec("PRAGMA synchronous = FULL");
    }
  }

  /** Moves an error-queue entry back to the end of the line, keeping its id. */
  retry(id: string): RetryResult {
    const row = this.db.prepare("SELECT error_origin FROM messages WHERE id = ? AND state = 'error'").get(id) as
      | { error_origin: string }
      | undefined;
    if (!row) return "not_found";
    // A message without a readable MSH cannot be forwarded: the Worker could not identify it either.
    if (row.error_origin === "local") return "not_retryable";
    try {
      this.transaction(() => {
        const copy = "protocol, sender, control_id, message_type, raw, received_at, listener, remote_address";
        this.db
          .prepare(
            `INSERT INTO messages (id, state, ${copy}) SELECT '~' || id, 'pending', ${copy} FROM messages WHERE id = ?`,
          )
          .run(id);
        this.db.prepare("DELETE FROM messages WHERE id = ?").run(id);
        this.db.prepare("UPDATE messages SET id = ? WHERE id = ?").run(id, `~${id}`);
      });
    } catch (error) {
      if (error instanceof Error && /UNIQUE/.test(error.message)) return "conflict";
      throw error;
    }
    return "requeued";
  }

  listErrors(limit: number): ErrorEntry[] {
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS}, error_origin, error_code, error_message, settled_at FROM messages
         WHERE state = 'error' ORDER BY seq LIMIT ?`,
      )
      .all(limit) as unknown as (Row & ErrorRow)[];
    return rows.map((row) => ({
      ...toMessage(row),
      origin: row.error_origin,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      failedAt: row.settled_at,
    }));
  }

  /** Pending and error-queue counts, in total and per protocol (protocols with neither are left out). */
  depths(): Depths {
    const rows = this.db
      .prepare(
        `SELECT protocol, sum(state = 'pending') AS pending, sum(state = 'error') AS error FROM messages
         WHERE state IN ('pending', 'error') GROUP BY protocol ORDER BY protocol`,
      )
      .all() as unknown as ({ protocol: string } & Depth)[];
    const depths: Depths = { pending: 0, error: 0, protocols: {} };
    for (const { protocol, pending, error } of rows) {
      depths.protocols[protocol] = { pending, error };
      depths.pending += pending;
      depths.error += error;
    }
    return depths;
  }

  /** Protocols with pending messages, so none is left without a forwarding lane. */
  pendingProtocols(): string[] {
    const rows = this.db
      .prepare("SELECT DISTINCT protocol FROM messages WHERE state = 'pending' ORDER BY protocol")
      .all() as { protocol: string }[];
    return rows.map((r) => r.protocol);
  }

  /** Forgets forwarded messages settled before `before`; their control id no longer counts as a duplicate. */
  pruneDone(before: Date): number {
    const result = this.db
      .prepare("DELETE FROM messages WHERE state = 'done' AND settled_at < ?")
      .run(before.toISOString());
    return Number(result.changes);
  }

  close(): void {
    if (this.writes.length > 0) this.flush();
    this.db.close();
  }

  private transaction(body: () => void): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      body();
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }
}

export interface Depth {
  pending: number;
  error: number;
}

export interface Depths extends Depth {
  protocols: Record<string, Depth>;
}

interface Row {
  seq: number;
  id: string;
  protocol: string;
  sender: string | null;
  control_id: string | null;
  message_type: string | null;
  raw: string;
  received_at: string;
  listener: string;
  remote_address: string;
}

interface ErrorRow {
  error_origin: "local" | "worker";
  error_code: string;
  error_message: string;
  settled_at: string;
}

function toMessage(row: Row): QueuedMessage {
  return {
    seq: row.seq,
    id: row.id,
    protocol: row.protocol,
    sender: row.sender,
    controlId: row.control_id,
    messageType: row.message_type,
    raw: row.raw,
    receivedAt: row.received_at,
    listener: row.listener,
    remoteAddress: row.remote_address,
  };
}
