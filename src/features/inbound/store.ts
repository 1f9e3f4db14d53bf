// D1 access for inbound messages of every protocol, scoped by organization: idempotent
// insert, FIFO reads per sender, state changes, listing. A large message's text (an HL7
// MDM with an embedded PDF is several MB) is kept in R2, its key in the row.
import { and, asc, count, desc, eq, getTableColumns, inArray, isNotNull, lt, max, or, type SQL, sql } from "drizzle-orm";
import type { Database, Write } from "../../platform/db/client";
import { spill, unspill } from "../../platform/db/spill";
import { atOrAfter, hourOf } from "../../platform/db/hourly";
import type { InboundAdapter } from "./adapter";
import { type InboundMessageRow, type MessageError, type MessageStatus, inboundMessages } from "./tables";

/** A listed message: everything but its text, which a list never needs (up to 128 KB each inline). */
export type InboundMessageSummary = Omit<InboundMessageRow, "raw">;
const { raw: _raw, ...summaryColumns } = getTableColumns(inboundMessages);

export type NewInboundMessage = Omit<InboundMessageRow, "seq" | "executions" | "resources" | "attempts" | "updatedAt" | "orgId" | "id" | "rawKey">;

/** `%` and `_` taken literally in a LIKE pattern (escaped with `\`). */
const likeLiteral = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** The stored text contains `text` (ASCII case-insensitive, as SQLite's LIKE); a text kept in R2 is not searched. */
const rawContains = (text: string) => sql`${inboundMessages.raw} LIKE ${likeLiteral(text)} ESCAPE '\\'`;

export interface HourlyCount {
  protocol: string;
  sender: string | null;
  status: MessageStatus;
  /** The UTC hour, `YYYY-MM-DDTHH:00:00Z`. */
  hour: string;
  count: number;
}

/** One sender seen, with how many messages it sent and when the last arrived. */
export interface SenderSeen {
  protocol: string;
  sender: string;
  count: number;
  lastReceivedAt: string;
}

export interface InsertOutcome {
  row: InboundMessageRow;
  /** False when the message was already stored (same sender and control id, or same client id). */
  inserted: boolean;
}

export interface MessageFilter {
  status?: MessageStatus;
  protocol?: string;
  messageType?: string;
  controlId?: string;
  sender?: string;
  /** Texts the stored message contains, each. */
  texts?: string[];
  /** Only these protocols (a field search covers the protocols that know the path). */
  protocols?: string[];
}

export class InboundMessageStore {
  constructor(
    private readonly db: Database,
    private readonly orgId: string,
    private readonly bucket: R2Bucket,
  ) {}

  /**
   * Inserts each message unless it is a duplicate, in one D1 batch (one transaction). Large texts
   * go to R2 first, so a stored row never points at a missing object; a duplicate's copy is removed.
   */
  async insertMany(messages: NewInboundMessage[], blob: InboundAdapter["blob"]): Promise<InsertOutcome[]> {
    if (!messages.length) return [];
    const now = new Date().toISOString();
    const rows = await Promise.all(
      messages.map(async (m) => {
        const id = crypto.randomUUID();
        const { inline, key } = await spill(this.bucket, `orgs/${this.orgId}/${blob.folder}/messages/${id}${blob.extension}`, m.raw, blob.mediaType);
        return { ...m, id, orgId: this.orgId, updatedAt: now, raw: inline ?? "", rawKey: key };
      }),
    );
    const statements = rows.map((r) => this.db.insert(inboundMessages).values(r).onConflictDoNothing().returning());
    const results = await this.db.batch(statements as [(typeof statements)[number], ...typeof statements]);
    const outcomes: InsertOutcome[] = [];
    for (const [i, inserted] of results.entries()) {
      const row = inserted[0];
      if (row) {
        outcomes.push({ row, inserted: true });
        continue;
      }
      const existing = await this.findDuplicate(rows[i]!);
      if (!existing) throw new Error("insert conflicted but no existing message was found");
      if (rows[i]!.rawKey) await this.bucket.delete(rows[i]!.rawKey!);
      outcomes.push({ row: existing, inserted: false });
    }
    return outcomes;
  }

  private findDuplicate(m: NewInboundMessage): Promise<InboundMessageRow | undefined> {
    const byClient = m.clientId ? eq(inboundMessages.clientId, m.clientId) : undefined;
    const byControl =
      m.sender !== null && m.controlId !== null
        ? and(eq(inboundMessages.protocol, m.protocol), eq(inboundMessages.sender, m.sender), eq(inboundMessages.controlId, m.controlId))
        : undefined;
    const match = [byClient, byControl].filter((c): c is SQL => c !== undefined);
    return this.db
      .select()
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), or(...match)))
      .get();
  }

  /** The row with its text, read from R2 when kept there. */
  async withRaw(row: InboundMessageRow): Promise<InboundMessageRow> {
    const raw = await unspill(this.bucket, { inline: row.raw, key: row.rawKey });
    if (raw === undefined) throw new Error(`The text of message ${row.id} is missing from R2 (${row.rawKey})`);
    return { ...row, raw };
  }

  get(id: string): Promise<InboundMessageRow | undefined> {
    return this.db
      .select()
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), eq(inboundMessages.id, id)))
      .get();
  }

  private where(filter: MessageFilter, ...more: (SQL | undefined)[]): SQL | undefined {
    return and(
      eq(inboundMessages.orgId, this.orgId),
      filter.status ? eq(inboundMessages.status, filter.status) : undefined,
      filter.protocol ? eq(inboundMessages.protocol, filter.protocol) : undefined,
      filter.protocols ? inArray(inboundMessages.protocol, filter.protocols) : undefined,
      filter.messageType ? eq(inboundMessages.messageType, filter.messageType) : undefined,
      filter.controlId ? eq(inboundMessages.controlId, filter.controlId) : undefined,
      filter.sender ? eq(inboundMessages.sender, filter.sender) : undefined,
      ...(filter.texts ?? []).map(rawContains),
      ...more,
    );
  }

  async list(filter: MessageFilter, limit: number, offset: number): Promise<{ rows: InboundMessageSummary[]; total: number }> {
    const where = this.where(filter);
    const [rows, totals] = await Promise.all([
      this.db.select(summaryColumns).from(inboundMessages).where(where).orderBy(desc(inboundMessages.seq)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(inboundMessages).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /**
   * Messages with their inline text, newest first, older than `beforeSeq`: the candidates a content
   * search reads a batch at a time.
   */
  candidates(filter: MessageFilter, limit: number, beforeSeq?: number): Promise<InboundMessageRow[]> {
    return this.db
      .select()
      .from(inboundMessages)
      .where(this.where(filter, beforeSeq === undefined ? undefined : lt(inboundMessages.seq, beforeSeq)))
      .orderBy(desc(inboundMessages.seq))
      .limit(limit);
  }

  /** The summaries of these messages (by seq), newest first. */
  summaries(seqs: number[]): Promise<InboundMessageSummary[]> {
    if (!seqs.length) return Promise.resolve([]);
    return this.db
      .select(summaryColumns)
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), inArray(inboundMessages.seq, seqs)))
      .orderBy(desc(inboundMessages.seq));
  }

  /** Every sender that sent a message, most recent first. */
  async senders(): Promise<SenderSeen[]> {
    const rows = await this.db
      .select({ protocol: inboundMessages.protocol, sender: inboundMessages.sender, count: count(), lastReceivedAt: max(inboundMessages.receivedAt) })
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), isNotNull(inboundMessages.sender)))
      .groupBy(inboundMessages.protocol, inboundMessages.sender)
      .orderBy(desc(max(inboundMessages.receivedAt)));
    return rows.map((r) => ({ protocol: r.protocol, sender: r.sender ?? "", count: r.count, lastReceivedAt: r.lastReceivedAt ?? "" }));
  }

  /** Messages received since `since` (ISO), counted per protocol, sender, status and UTC hour. */
  async countsByHour(since: string): Promise<HourlyCount[]> {
    const hour = hourOf(inboundMessages.receivedAt);
    const rows = await this.db
      .select({ protocol: inboundMessages.protocol, sender: inboundMessages.sender, status: inboundMessages.status, hour, count: count() })
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), atOrAfter(inboundMessages.receivedAt, since)))
      .groupBy(inboundMessages.protocol, inboundMessages.sender, inboundMessages.status, hour);
    return rows;
  }

  /** The oldest messages of a sender still waiting to be processed (FIFO head), oldest first. */
  nextPending(sender: string, limit = 1): Promise<InboundMessageRow[]> {
    return this.db
      .select()
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), eq(inboundMessages.sender, sender), eq(inboundMessages.status, "received")))
      .orderBy(asc(inboundMessages.seq))
      .limit(limit);
  }

  /** Senders that have messages waiting, e.g. to restart routing after reprocessing. */
  async sendersWithPending(ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.db
      .selectDistinct({ sender: inboundMessages.sender })
      .from(inboundMessages)
      .where(and(eq(inboundMessages.orgId, this.orgId), inArray(inboundMessages.id, ids), isNotNull(inboundMessages.sender)));
    return rows.map((r) => r.sender!);
  }

  /** `writes`: the runs' own records, committed in the same batch as the message's status. */
  async markProcessed(id: string, executions: string[], resources: string[], attempts: number, writes: Write[] = []): Promise<void> {
    const update = this.updateQuery(id, { status: "processed", executions, resources, error: null, attempts });
    await this.db.batch([update, ...writes]);
  }

  async markUnrouted(id: string, attempts: number): Promise<void> {
    await this.update(id, { status: "unrouted", executions: [], resources: [], error: null, attempts });
  }

  async markFailed(id: string, error: MessageError, attempts: number): Promise<void> {
    await this.update(id, { status: "failed", error, attempts });
  }

  async recordAttempt(id: string, error: MessageError, attempts: number): Promise<void> {
    await this.update(id, { error, attempts });
  }

  /** Puts a processed, unrouted or failed message back in its sender's queue. */
  async requeue(id: string): Promise<void> {
    await this.update(id, { status: "received", error: null, attempts: 0 });
  }

  private async update(id: string, set: Partial<InboundMessageRow>): Promise<void> {
    await this.updateQuery(id, set);
  }

  private updateQuery(id: string, set: Partial<InboundMessageRow>) {
    return this.db
      .update(inboundMessages)
      .set({ ...set, updatedAt: new Date().toISOString() })
      .where(and(eq(inboundMessages.orgId, this.orgId), eq(inboundMessages.id, id)));
  }
}
