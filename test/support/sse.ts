// Parses a Server-Sent Events body strictly: every frame must be `event:` then
// one `data:` line of JSON, ended by a blank line.
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export function parseSse(text: string): SseEvent[] {
  if (!text.endsWith("\n\n")) throw new Error("SSE body must end with a blank line");
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      const lines = frame.split("\n");
      const [ev, data, ...rest] = lines;
      if (!ev?.startsWith("event: ") || !data?.startsWith("data: ") || rest.length) {
        throw new Error(`Malformed SSE frame: ${JSON.stringify(frame)}`);
      }
      return { event: ev.slice(7), data: JSON.parse(data.slice(6)) as Record<string, unknown> };
    });
}
