// The browser suite's language model: the agent tests' fake OpenAI-compatible server (the real
// chat.completions wire format, SSE included) behind a loopback HTTP server, which the suite's
// service reaches through LLM_BASE_URL. An agent's chat searches once, then answers from the tool
// result; the pipeline copilot's requests get pipelines (fake-copilot.ts).
import { type ChatRequest, type FakeReply, fakeOpenAI } from "../../support/fake-openai";
import { copilotReply } from "./fake-copilot";
import { serveOnLoopback } from "../../support/loopback-http";

export const FAKE_MODEL = "fake-llama";

function brain(req: ChatRequest): FakeReply {
  const copilot = copilotReply(req);
  if (copilot) return copilot;
  const tool = req.messages.find((m) => m.role === "tool");
  if (!tool) return { content: "Let me look for patients first.", tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "_count=1" } }] };
  const total = /"total":(\d+)/.exec(String(tool.content))?.[1] ?? "no";
  return { content: `The search found ${total} patients.` };
}

export async function startFakeModel(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const fake = fakeOpenAI(brain, [FAKE_MODEL]);
  const server = await serveOnLoopback((url, init) => fake.fetch(url, init));
  return { baseURL: `${server.origin}/v1`, close: server.close };
}
