// Conversation: one Durable Object per agent conversation. It holds the message
// history in its SQLite storage and runs one turn at a time, so concurrent sends
// to the same conversation are answered in order, each seeing the one before.
// A long answer or trace (up to 20 model calls a turn) goes to R2, its key in the row.
import type { OrgContext } from "../../platform/org-context";
import { OrgObject } from "../../platform/durable-objects/org-object";
import type { Principal } from "../tenancy";
import { type Spilled, spill, unspill } from "../../platform/db/spill";
import type { AgentRow } from "./tables";
import type { Env } from "../../platform/env";
import { type Failure, apiErrorOf, asFailure } from "../../platform/durable-objects/failure";
import { claimFor, ownedBy } from "../../platform/durable-objects/owner";
import { type AgentEvent, collectTurn, type ReasoningStep, type TurnResult } from "./events";
import type { HistoryMessage } from "./history";
import { sseStream } from "./sse";
import { AgentStore } from "./store";
import { prepareTurn } from "./turn";

/** A stored message; reasoning_steps is JSON text (RPC cannot type `unknown` values). */
export interface StoredMessage {
  id: number;
  role: "user" | "assistant";
  content: string;
  reasoning_steps: string | null;
  created_at: string;
}

type RowFields = StoredMessage & { content_key: string | null; steps_key: string | null };
/** A mapped type: SqlStorage wants an index signature that an interface lacks. */
type StoredRow = { [K in keyof RowFields]: RowFields[K] };
const STORED_COLUMNS = "id, role, content, content_key, reasoning_steps, steps_key, created_at";

export interface SendRequest {
  principal: Principal;
  agent: AgentRow;
  conversationId: string;
  message: string;
  stream: boolean;
}

export type SendResult = { ok: true; result: TurnResult & { model: string } } | { ok: true; stream: ReadableStream<Uint8Array> } | Failure;

/** A turn that never finishes (a client that never reads its stream) frees the conversation after this. */
const TURN_LEASE_MS = 180_000;

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class Conversation extends OrgObject {
  private readonly sql: SqlStorage;
  private tail: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL,
      reasoning_steps TEXT, created_at TEXT NOT NULL)`);
    // R2 keys of texts too large for a row (objects created before them lack these columns).
    const columns = new Set(this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('messages')").toArray().map((c) => c.name));
    for (const column of ["content_key", "steps_key"]) if (!columns.has(column)) this.sql.exec(`ALTER TABLE messages ADD COLUMN ${column} TEXT`);
  }

  /** Waits for the turns before; resolves with this turn's release function. */
  private acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = this.tail;
    this.tail = before.then(() => mine);
    return before.then(() => {
      const timer = setTimeout(release, TURN_LEASE_MS);
      return () => {
        clearTimeout(timer);
        release();
      };
    });
  }

  async messages(orgId: string, limit: number, offset: number): Promise<{ messages: StoredMessage[]; total: number }> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return { messages: [], total: 0 };
    const rows = this.sql
      .exec<StoredRow>(`SELECT ${STORED_COLUMNS} FROM messages ORDER BY id LIMIT ? OFFSET ?`, limit, offset)
      .toArray();
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages").one().n;
    return { messages: await Promise.all(rows.map((r) => this.resolved(r))), total };
  }

  private async history(): Promise<HistoryMessage[]> {
    const rows = this.sql.exec<StoredRow>(`SELECT ${STORED_COLUMNS} FROM messages ORDER BY id`).toArray();
    return Promise.all(rows.map(async (r) => ({ role: r.role, content: (await this.resolved(r)).content })));
  }

  /** The row with its texts read back from R2 where they were kept. */
  private async resolved({ content_key, steps_key, ...row }: StoredRow): Promise<StoredMessage> {
    const [content, steps] = await Promise.all([
      unspill(this.env.BLOBS, { inline: row.content, key: content_key }),
      unspill(this.env.BLOBS, { inline: row.reasoning_steps, key: steps_key }),
    ]);
    return { ...row, content: content ?? "", reasoning_steps: steps ?? null };
  }

  private async append(keyPrefix: string, role: StoredMessage["role"], content: string, steps: ReasoningStep[] | null): Promise<void> {
    const name = `${keyPrefix}/${crypto.randomUUID()}`;
    const none: Spilled = { inline: null, key: null };
    const [text, trace] = await Promise.all([
      spill(this.env.BLOBS, `${name}.txt`, content, "text/plain; charset=utf-8"),
      steps ? spill(this.env.BLOBS, `${name}.steps.json`, JSON.stringify(steps), "application/json") : none,
    ]);
    this.sql.exec(
      "INSERT INTO messages (role, content, content_key, reasoning_steps, steps_key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      role,
      text.inline ?? "",
      text.key,
      trace.inline,
      trace.key,
      new Date().toISOString(),
    );
  }

  /** Passes events through; stores the exchange only when the turn completed. */
  private async *persisting(req: SendRequest, org: OrgContext, userMessage: string, events: AsyncGenerator<AgentEvent>, release: () => void) {
    const steps: ReasoningStep[] = [];
    const answer: string[] = [];
    try {
      for await (const e of events) {
        if (e.type === "message") answer.push(e.content);
        else if (e.type === "done") {
          const keyPrefix = `orgs/${req.principal.orgId}/conversations/${req.conversationId}`;
          await this.append(keyPrefix, "user", userMessage, null);
          await this.append(keyPrefix, "assistant", answer.join("\n\n"), steps);
          await new AgentStore(org.db).recordMessages(
            req.principal.orgId,
            req.agent.id,
            req.conversationId,
            2,
            req.message.slice(0, 80),
          );
        } else if (e.type === "tool_call") steps.push({ type: "tool_call", content: `Calling ${e.tool}`, tool: e.tool, params: e.params });
        else if (e.type === "tool_result") steps.push({ type: "tool_result", content: e.tool, tool: e.tool, result: e.result });
        else if (e.type === "thinking") steps.push({ type: "thinking", content: e.content });
        yield e;
      }
    } finally {
      release();
    }
  }

  async send(req: SendRequest): Promise<SendResult> {
    await claimFor(this.ctx.storage, req.principal.orgId);
    const release = await this.acquire();
    let turn: Awaited<ReturnType<typeof prepareTurn>>;
    let org: OrgContext;
    try {
      org = await this.orgContext(req.principal.orgId);
      turn = await prepareTurn(org, req.principal, org.agents(req.principal), { agent: req.agent, input: req.message, history: await this.history(), conversationId: req.conversationId });
    } catch (err) {
      release();
      return asFailure(err);
    }
    const events = this.persisting(req, org, turn.userMessage, turn.events, release);
    if (req.stream) return { ok: true, stream: sseStream(events) };
    try {
      const result = await collectTurn(events, apiErrorOf);
      return { ok: true, result: { ...result, model: turn.modelId } };
    } catch (err) {
      return asFailure(err);
    }
  }

  /** Forgets the whole conversation. */
  async destroy(orgId: string): Promise<void> {
    if (!(await ownedBy(this.ctx.storage, orgId))) return;
    const keys = this.sql
      .exec<{ key: string }>("SELECT content_key AS key FROM messages WHERE content_key IS NOT NULL UNION ALL SELECT steps_key FROM messages WHERE steps_key IS NOT NULL")
      .toArray()
      .map((r) => r.key);
    for (let i = 0; i < keys.length; i += 1000) await this.env.BLOBS.delete(keys.slice(i, i + 1000));
    await this.ctx.storage.deleteAll();
  }
}
