// The browser suite's language model: the agent tests' fake OpenAI-compatible server (the real
// chat.completions wire format, SSE included) behind a loopback HTTP server, which the suite's
// service reaches through LLM_BASE_URL. It searches once, then answers from the tool result.
import { createServer } from "node:http";
import { type ChatRequest, type FakeReply, fakeOpenAI } from "../../support/fake-openai";

export const FAKE_MODEL = "fake-llama";

function brain(req: ChatRequest): FakeReply {
  const tool = req.messages.find((m) => m.role === "tool");
  if (!tool) return { content: "Let me look for patients first.", tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "_count=1" } }] };
  const total = /"total":(\d+)/.exec(String(tool.content))?.[1] ?? "no";
  return { content: `The search found ${total} patients.` };
}

export async function startFakeModel(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const fake = fakeOpenAI(brain, [FAKE_MODEL]);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const response = await fake.fetch(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
