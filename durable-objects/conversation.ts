// Conversation: one Durable Object per agent conversation. It holds the message
// history in its SQLite storage and runs one turn at a time, so concurrent sends
// to the same conversation are answered in order, each seeing the one before.
import { DurableObject } from "cloudflare:workers";
import type { Principal } from "../src/auth/permissions";
import { database } from "../src/db/client";
import type { AgentRow } from "../src/db/schema";
import type { Env } from "../src/env";
import { type Failure, apiErrorOf, asFailure } from "./failure";
import { claimFor, ownedBy } from "./owner";
import { type AgentEvent, collectTurn, type ReasoningStep, type TurnResult } from "../src/agents/events";
import type { HistoryMessage } from "../src/agents/history";
import { agentServicesFor } from "../src/agents/services";
import { sseStream } from "../src/agents/sse";
import { AgentStore } from "../src/agents/store";
import { prepareTurn } from "../src/agents/turn";

/** A stored message; reasoning_steps is JSON text (RPC cannot type `unknown` values). */
export interface StoredMessage {
  id: number;
  role: "user" | "assistant";
  content: string;
  reasoning_steps: string | null;
  created_at: string;
}

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

export class Conversation extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private tail: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL,
      reasoning_steps TEXT, created_at TEXT NOT NULL)`);
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
      .exec<{ [K in keyof StoredMessage]: StoredMessage[K] }>(
        "SELECT id, role, content, reasoning_steps, created_at FROM messages ORDER BY id LIMIT ? OFFSET ?",
        limit,
        offset,
      )
      .toArray();
    const total = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM messages").one().n;
    return { messages: rows, total };
  }

  private history(): HistoryMessage[] {
    return this.sql
      .exec<{ role: HistoryMessage["role"]; content: string }>("SELECT role, content FROM messages ORDER BY id")
      .toArray()
      .map((r) => ({ role: r.role, content: r.content }));
  }

  private append(role: StoredMessage["role"], content: string, steps: ReasoningStep[] | null): void {
    this.sql.exec(
      "INSERT INTO messages (role, content, reasoning_steps, created_at) VALUES (?, ?, ?, ?)",
      role,
      content,
      steps ? JSON.stringify(steps) : null,
      new Date().toISOString(),
    );
  }

  /** Passes events through; stores the exchange only when the turn completed. */
  private async *persisting(req: SendRequest, userMessage: string, events: AsyncGenerator<AgentEvent>, release: () => void) {
    const steps: ReasoningStep[] = [];
    const answer: string[] = [];
    try {
      for await (const e of events) {
        if (e.type === "message") answer.push(e.content);
        else if (e.type === "done") {
          this.append("user", userMessage, null);
          this.append("assistant", answer.join("\n\n"), steps);
          await new AgentStore(database(this.env.DB)).recordMessages(
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
    try {
      const services = agentServicesFor(this.env, req.principal);
      turn = await prepareTurn(this.env, req.principal, services, { agent: req.agent, input: req.message, history: this.history() });
    } catch (err) {
      release();
      return asFailure(err);
    }
    const events = this.persisting(req, turn.userMessage, turn.events, release);
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
    if (await ownedBy(this.ctx.storage, orgId)) await this.ctx.storage.deleteAll();
  }
}
