// Server-Sent Events framing for the agent chat stream (spec 6.1): each event is
// `event: <name>` plus one `data:` line of JSON, ended by a blank line.
import type { AgentEvent } from "./events";

/** The wire payload of each event, exactly as documented: internal ids stay out. */
export function ssePayload(e: AgentEvent): { event: string; data: unknown } {
  switch (e.type) {
    case "thinking":
      return { event: "thinking", data: { content: e.content } };
    case "tool_call":
      return { event: "tool_call", data: { tool: e.tool, params: e.params } };
    case "tool_result":
      return { event: "tool_result", data: { tool: e.tool, result: e.result, is_error: e.is_error } };
    case "message":
      return { event: "message", data: { content: e.content } };
    case "done":
      return { event: "done", data: {} };
    case "error":
      return { event: "error", data: { code: e.code, message: e.message, status: e.status } };
  }
}

/** One frame: `event: <name>`, one `data:` line of JSON, a blank line. */
export function sseFrame({ event, data }: { event: string; data: unknown }): string {
  // JSON.stringify never emits a raw newline, so one data line is always enough.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function encodeSse(e: AgentEvent): string {
  return sseFrame(ssePayload(e));
}

/** A byte stream of SSE frames from an event source (agent events, or another stream's with its encoder). */
export function sseStream(events: AsyncIterable<AgentEvent>): ReadableStream<Uint8Array>;
export function sseStream<E>(events: AsyncIterable<E>, encode: (e: E) => string): ReadableStream<Uint8Array>;
export function sseStream<E>(events: AsyncIterable<E>, encode: (e: E) => string = encodeSse as unknown as (e: E) => string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(encode(next.value)));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;
