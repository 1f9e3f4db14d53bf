// The browser suite's model as the pipeline copilot sees it (src/features/copilot/generation/
// pipeline.ts): the system prompt carries the node catalog, the first user message either asks to
// design a pipeline or gives the current definition and a change. The answer is the JSON object
// the copilot's schema asks for, as message content (OpenAI's chat.completions shape), so the
// service parses, validates and returns it exactly as with a real model.
import type { ChatRequest, FakeReply } from "../../support/fake-openai";

interface Node {
  id: string;
  type: string;
  config: Record<string, unknown>;
  [more: string]: unknown;
}
interface Connection {
  from: { node: string; port: string };
  to: { node: string; port: string };
}

const text = (req: ChatRequest, role: string) => req.messages.find((m) => m.role === role)?.content ?? "";
const answer = (value: unknown): FakeReply => ({ content: JSON.stringify(value), usage: { prompt_tokens: 900, completion_tokens: 120 } });

/** "Greet the caller by name": a manual trigger into a JSONata transform. */
function greeting(): FakeReply {
  return answer({
    name: "Greeting",
    description: "Answers a greeting for the name it is given",
    nodes: [
      { id: "start", type: "control.manual_trigger", config: {} },
      { id: "greet", type: "data.transform", config: { expression: '{"greeting": "Hello " & name}' } },
    ],
    connections: [{ from: { node: "start", port: "event" }, to: { node: "greet", port: "input" } }],
  });
}

/** "Wait N seconds before <node>": a control.delay spliced into the connections entering that node. */
function addDelay(current: { nodes: Node[]; connections: Connection[] }, name: string, seconds: number, before: string): FakeReply {
  const target = current.nodes.find((n) => n.id === before || n.type.endsWith(`.${before}`));
  if (!target) return { content: `There is no ${before} node in this pipeline.` };
  const delay = { id: "wait", type: "control.delay", config: { ms: seconds * 1000 } };
  const connections = current.connections.flatMap((c) =>
    c.to.node === target.id ? [{ from: c.from, to: { node: delay.id, port: "input" } }, { from: { node: delay.id, port: "output" }, to: c.to }] : [c],
  );
  return answer({ name, nodes: [...current.nodes, delay], connections });
}

/** The copilot's answer, or undefined when the request is not the pipeline copilot's. */
export function copilotReply(req: ChatRequest): FakeReply | undefined {
  if (!text(req, "system").includes("You design pipelines as JSON")) return undefined;
  const prompt = text(req, "user");
  const design = /^Design a pipeline for this request:\n([\s\S]*)$/.exec(prompt);
  if (design) return /greet/i.test(design[1] ?? "") ? greeting() : { content: "I can only design greeting pipelines." };
  const change = /^Here is the current pipeline "(.*)":\n(.*)\nChange it as follows[^\n]*:\n([\s\S]*?)\nAnswer/.exec(prompt);
  const wait = /wait (\d+) seconds? before (?:the )?([\w.-]+)/i.exec(change?.[3] ?? "");
  if (change && wait) return addDelay(JSON.parse(change[2] ?? "{}"), change[1] ?? "Pipeline", Number(wait[1]), wait[2] ?? "");
  return { content: "I do not know how to make that change." };
}
