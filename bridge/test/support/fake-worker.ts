// A faithful fake of the Worker's inbound endpoint (POST /api/v1/hl7/messages), with switches
// to go down, answer an error status, be slow, or reject chosen messages. It dedups on
// MSH-10 per sender (MSH-3|MSH-4), as the real Worker promises. Tests of other protocols add
// their own endpoints (`endpoints`), behind the same authentication and failure switches.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readHeader } from "../../src/protocols/hl7/header";
import { HL7_MESSAGES_PATH as MESSAGES_PATH } from "../../src/protocols/hl7/adapter";

export interface Delivered {
  id: string;
  raw: string;
  sender: string;
  controlId: string;
}

export interface WorkerRequest {
  at: number;
  path: string;
  status: number;
  idempotencyKey: string | null;
  ids: string[];
}

export class FakeWorker {
  /** Destroy every connection without answering (network failure). */
  down = false;
  /** Answer every request with this status (e.g. 500, 429, 401) instead of processing it. */
  failStatus: number | null = null;
  retryAfter: string | null = null;
  /** Answer only after this many milliseconds. */
  delayMs = 0;
  /** Return a reason to reject a message, or null to let it through. */
  rejectWhen: (raw: string) => string | null = () => null;
  /** More endpoints: path → the 200 answer to a parsed JSON body. */
  readonly endpoints = new Map<string, (body: unknown) => unknown>();

  readonly requests: WorkerRequest[] = [];
  /** Every message of every processed batch, duplicates included. */
  readonly deliveries: Delivered[] = [];
  /** Messages stored, in the order the Worker stored them. */
  readonly accepted: Delivered[] = [];
  readonly rejected: Delivered[] = [];
  private readonly stored = new Map<string, string>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    readonly apiKey: string,
    readonly orgId: string,
  ) {}

  static async start(apiKey = "test-key", orgId = "org-test"): Promise<FakeWorker> {
    let worker: FakeWorker | undefined;
    const server = http.createServer((req, res) => {
      worker?.handle(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    worker = new FakeWorker(server, `http://127.0.0.1:${port}`, apiKey, orgId);
    return worker;
  }

  /** Stored messages of one sender, in stored order. */
  acceptedFrom(sender: string): string[] {
    return this.accepted.filter((m) => m.sender === sender).map((m) => m.controlId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const body = await readBody(req);
    const idempotencyKey = header(req, "idempotency-key");
    const record = (status: number, ids: string[] = []) =>
      this.requests.push({ at: Date.now(), path: req.url ?? "", status, idempotencyKey, ids });
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, code: string, message: string, headers?: Record<string, string>) => {
      record(status);
      answer(status, { error: { code, message, status } }, headers);
    };
    const endpoint = this.endpoints.get(req.url ?? "");
    if (req.method !== "POST" || (req.url !== MESSAGES_PATH && !endpoint)) return error(404, "NOT_FOUND", "no such endpoint");
    if (header(req, "authorization") !== `Bearer ${this.apiKey}`) return error(401, "UNAUTHORIZED", "bad API key");
    if (header(req, "x-organization-id") !== this.orgId) return error(403, "FORBIDDEN", "wrong organization");
    if (!header(req, "content-type")?.startsWith("application/json")) return error(415, "UNSUPPORTED", "JSON only");
    if (!idempotencyKey) return error(400, "BAD_REQUEST", "Idempotency-Key is required");
    if (this.failStatus !== null) {
      return error(this.failStatus, "INJECTED", "injected failure", this.retryAfter ? { "retry-after": this.retryAfter } : {});
    }
    if (endpoint) {
      record(200);
      return answer(200, endpoint(JSON.parse(body)));
    }
    const messages = parseMessages(body);
    if (!messages) return error(400, "BAD_REQUEST", "body must be {messages:[{id,raw,received_at,source}]}");
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const results = messages.map((m) => this.process(m.id, m.raw));
    record(200, messages.map((m) => m.id));
    answer(200, { results });
  }

  private process(id: string, raw: string) {
    const parsed = readHeader(raw);
    const invalid = parsed.ok ? this.rejectWhen(raw) : parsed.error;
    const h = parsed.ok ? parsed.header : null;
    const delivered = { id, raw, sender: h ? `${h.sendingApplication}|${h.sendingFacility}` : "", controlId: h?.controlId ?? "" };
    this.deliveries.push(delivered);
    if (invalid !== null) {
      this.rejected.push(delivered);
      return { id, status: "rejected", error: { code: "INVALID_MESSAGE", message: invalid } };
    }
    const key = `${delivered.sender}\u0000${delivered.controlId}`;
    const existing = this.stored.get(key);
    if (existing) return { id, status: "duplicate", message_id: existing };
    const messageId = crypto.randomUUID();
    this.stored.set(key, messageId);
    this.accepted.push(delivered);
    return { id, status: "accepted", message_id: messageId };
  }
}

function header(req: http.IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" ? value : null;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function parseMessages(body: string): { id: string; raw: string }[] | null {
  try {
    const parsed = JSON.parse(body) as { messages?: unknown };
    if (!Array.isArray(parsed.messages) || parsed.messages.length === 0) return null;
    const messages = parsed.messages as Record<string, unknown>[];
    const valid = messages.every(
      (m) =>
        typeof m.id === "string" &&
        typeof m.raw === "string" &&
        typeof m.received_at === "string" &&
        !Number.isNaN(Date.parse(m.received_at)) &&
        typeof (m.source as Record<string, unknown> | undefined)?.listener === "string" &&
        typeof (m.source as Record<string, unknown> | undefined)?.remote_address === "string",
    );
    return valid ? messages.map((m) => ({ id: m.id as string, raw: m.raw as string })) : null;
  } catch {
    return null;
  }
}
