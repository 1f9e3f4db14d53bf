// Reads an agent's Server-Sent Events answer as it arrives. EventSource cannot POST or send the
// console's CSRF header, so this is fetch plus a reader of the service's frames (`event: <name>`,
// one `data:` line of JSON, a blank line; src/features/agents/sse.ts).
import { ApiFailure, CSRF_HEADER } from "../lib/api";

export type AgentEvent =
  | { event: "thinking"; data: { content: string } }
  | { event: "tool_call"; data: { tool: string; params: unknown } }
  | { event: "tool_result"; data: { tool: string; result: unknown; is_error: boolean } }
  | { event: "message"; data: { content: string } }
  | { event: "done"; data: Record<string, never> }
  | { event: "error"; data: { code: string; message: string; status: number } };

function frameOf(text: string): AgentEvent | undefined {
  let event = "message";
  let data = "";
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data += line.slice(5).trim();
  }
  if (!data) return undefined;
  return { event, data: JSON.parse(data) } as AgentEvent;
}

/** POSTs `body` with stream true and calls `onEvent` for every frame as it arrives. */
export async function streamChat(path: string, body: Record<string, unknown>, onEvent: (e: AgentEvent) => void): Promise<void> {
  const res = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { [CSRF_HEADER]: "1", "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!res.ok || !res.body) {
    const parsed = (await res.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
    throw new ApiFailure(res.status, parsed?.error?.code ?? "HTTP_ERROR", parsed?.error?.message ?? `The service answered HTTP ${res.status}`);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = frameOf(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (frame) onEvent(frame);
      end = buffer.indexOf("\n\n");
    }
  }
}
