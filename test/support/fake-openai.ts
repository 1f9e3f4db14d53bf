// A fake OpenAI-compatible server speaking the real chat.completions wire format:
// JSON answers, or SSE chunks with content and tool_calls deltas (arguments split
// across chunks), a usage chunk and [DONE]. Used as a fetch function in workerd
// tests and behind a node:http server in Node tests.

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: "function"; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
  temperature?: number;
  max_tokens?: number;
  stream_options?: { include_usage?: boolean };
}

/** The `usage` an answer reports (default 20 prompt, 8 completion tokens); null: the answer carries none. */
export type FakeUsage = { prompt_tokens: number; completion_tokens: number } | null;

export type FakeReply =
  | { content: string; usage?: FakeUsage }
  | { tool_calls: { name: string; arguments: string | Record<string, unknown> }[]; content?: string; usage?: FakeUsage }
  | { status: number; body?: string }
  | { hang: true };

export type Brain = (req: ChatRequest, callIndex: number) => FakeReply | Promise<FakeReply>;

export interface FakeServer {
  fetch: typeof fetch;
  requests: ChatRequest[];
  models: string[];
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

function usageOf(reply: { usage?: FakeUsage }) {
  if (reply.usage === null) return undefined;
  const u = reply.usage ?? { prompt_tokens: 20, completion_tokens: 8 };
  return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
}

function streamBody(reply: Exclude<FakeReply, { status: number } | { hang: true }>, model: string, id: string): string {
  const base = { id, object: "chat.completion.chunk", created: 1_700_000_000, model };
  const chunk = (delta: unknown, finish_reason: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, finish_reason }] });
  let out = chunk({ role: "assistant", content: "" });
  const content = "content" in reply ? (reply.content ?? "") : "";
  for (let i = 0; i < content.length; i += 7) out += chunk({ content: content.slice(i, i + 7) });
  const calls = "tool_calls" in reply ? reply.tool_calls : [];
  calls.forEach((c, index) => {
    const args = typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments);
    const half = Math.ceil(args.length / 2);
    out += chunk({ tool_calls: [{ index, id: `call_${id}_${index}`, type: "function", function: { name: c.name, arguments: args.slice(0, half) } }] });
    out += chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
  });
  out += chunk({}, calls.length ? "tool_calls" : "stop");
  const usage = usageOf(reply);
  if (usage) out += sse({ ...base, choices: [], usage });
  return `${out}data: [DONE]\n\n`;
}

function jsonBody(reply: Exclude<FakeReply, { status: number } | { hang: true }>, model: string, id: string) {
  const calls = "tool_calls" in reply ? reply.tool_calls : [];
  return {
    id,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "content" in reply ? (reply.content ?? null) : null,
          ...(calls.length
            ? {
                tool_calls: calls.map((c, i) => ({
                  id: `call_${id}_${i}`,
                  type: "function",
                  function: { name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: calls.length ? "tool_calls" : "stop",
      },
    ],
    ...(usageOf(reply) ? { usage: usageOf(reply) } : {}),
  };
}

export function fakeOpenAI(brain: Brain, models = ["fake-llama"]): FakeServer {
  const requests: ChatRequest[] = [];
  const handler = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.pathname.endsWith("/models")) {
      return Response.json({ object: "list", data: models.map((id) => ({ id, object: "model" })) });
    }
    if (!url.pathname.endsWith("/chat/completions") || request.method !== "POST") {
      return new Response("not found", { status: 404 });
    }
    const body = (await request.json()) as ChatRequest;
    if (!models.includes(body.model)) {
      return Response.json({ error: { message: `model ${body.model} not found`, type: "invalid_request_error" } }, { status: 404 });
    }
    const index = requests.length;
    requests.push(body);
    const reply = await brain(body, index);
    if ("hang" in reply) {
      await new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
      throw new Error("unreachable");
    }
    if ("status" in reply) {
      return Response.json({ error: { message: reply.body ?? "failure", type: "server_error" } }, { status: reply.status });
    }
    const id = `chatcmpl-${index}`;
    if (body.stream) {
      return new Response(streamBody(reply, body.model, id), { headers: { "content-type": "text/event-stream" } });
    }
    return Response.json(jsonBody(reply, body.model, id));
  };
  return { fetch: handler as typeof fetch, requests, models };
}

/** The text of the last message of a role, for brains that answer by content. */
export function lastOf(req: ChatRequest, role: string): string {
  const m = [...req.messages].reverse().find((x) => x.role === role);
  return typeof m?.content === "string" ? m.content : "";
}
