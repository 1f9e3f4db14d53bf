// The browser suite's language model: the agent tests' fake OpenAI-compatible server (the real
// chat.completions wire format, SSE included) behind a loopback HTTP server, which the suite's
// service reaches through LLM_BASE_URL. An agent's chat searches once, then answers from the tool
// result; the pipeline copilot's requests get pipelines (fake-copilot.ts).
import { type ChatRequest, type FakeReply, fakeOpenAI } from "../../support/fake-openai";
import { copilotReply } from "./fake-copilot";
import { serveOnLoopback } from "../../support/loopback-http";

export const FAKE_MODEL = "fake-llama";

function parsed(content: string): { total?: number; resources?: unknown[] } {
  try {
    return JSON.parse(content) as { total?: number; resources?: unknown[] };
  } catch {
    return {};
  }
}

function brain(req: ChatRequest): FakeReply {
  const copilot = copilotReply(req);
  if (copilot) return copilot;
  const tool = req.messages.find((m) => m.role === "tool");
  if (!tool) return { content: "Let me look for patients first.", tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "_count=1" } }] };
  // The tool's result carries Bundle.total when the store counted it (a search with more pages
  // may leave it out): then the model reports the patients it was shown.
  const result = parsed(String(tool.content));
  const total = result.total ?? result.resources?.length ?? "no";
  return { content: `The search found ${total} patients.` };
}

export async function startFakeModel(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const fake = fakeOpenAI(brain, [FAKE_MODEL]);
  const server = await serveOnLoopback((url, init) => fake.fetch(url, init));
  return { baseURL: `${server.origin}/v1`, close: server.close };
}
