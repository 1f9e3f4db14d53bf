// HL7 v2 for tenant code (`ctx.hl7`, the code feature's CodeHelpers port): the service's own
// parser, encoder and ACK builder over a plain JSON view of a message, so nothing but JSON crosses
// into the sandbox. A view is {type, trigger, structure, controlId, version, delimiters, segments:
// [{name, fields}]} where fields[n] is the raw (escaped) text of field n (fields[0] the name; in
// MSH fields[1] the field separator and fields[2] the encoding characters). Inside the sandbox a
// view gets get(path), getAll(path) and set(path, value), each a call of the codec on the view.
// Failures are ApiErrors with HL7_<parser code> (HL7_NO_MSH...), HL7_BAD_PATH or HL7_INVALID_VIEW.
import { z } from "zod";
import type { CodeHelpers } from "../../features/code";
import { ApiError } from "../../platform/errors";
import { type AckCode, buildAck } from "./ack";
import { Hl7ParseError } from "./errors";
import { Hl7Message, Hl7Segment } from "./message";
import { parseMessage } from "./parse";

const View = z.object({
  delimiters: z.object({ field: z.string().length(1), component: z.string().length(1), repetition: z.string().length(1), escape: z.string().length(1).optional(), subcomponent: z.string().length(1).optional(), truncation: z.string().length(1).optional() }),
  segments: z.array(z.object({ fields: z.array(z.string()).min(1) })).min(1),
});

const ACK_CODES = new Set<AckCode>(["AA", "AE", "AR", "CA", "CE", "CR"]);

function parse(text: unknown): Hl7Message {
  if (typeof text !== "string") throw new ApiError(400, "HL7_INVALID_VIEW", "ctx.hl7.parse takes the message's text");
  try {
    return parseMessage(text);
  } catch (err) {
    if (err instanceof Hl7ParseError) throw new ApiError(422, `HL7_${err.code}`, err.message);
    throw err;
  }
}

/** The message a view (or a message's text) describes. */
function messageOf(value: unknown): Hl7Message {
  if (typeof value === "string") return parse(value);
  const v = View.safeParse(value);
  if (!v.success) {
    const issue = v.error.issues[0];
    throw new ApiError(400, "HL7_INVALID_VIEW", `Not a message view of ctx.hl7.parse: ${issue?.path.join(".")} ${issue?.message}`);
  }
  const d = v.data.delimiters;
  const segments = v.data.segments.map((s) => new Hl7Segment([...s.fields], d));
  if (segments[0]?.name !== "MSH") throw new ApiError(400, "HL7_INVALID_VIEW", "A message view's first segment must be MSH");
  return new Hl7Message(d, segments);
}

function viewOf(m: Hl7Message) {
  return { type: m.messageType, trigger: m.triggerEvent, structure: m.messageStructure, controlId: m.controlId, version: m.version, delimiters: { ...m.delimiters }, segments: m.segments.map((s) => ({ name: s.name, fields: [...s.fields] })) };
}

/** A path call (get, getAll, set) with a bad path is HL7_BAD_PATH, not a generic error. */
function pathCall<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof RangeError) throw new ApiError(400, "HL7_BAD_PATH", err.message);
    throw err;
  }
}

const path = (p: unknown) => {
  if (typeof p !== "string") throw new ApiError(400, "HL7_BAD_PATH", "An HL7 path is text, like PID-3.1");
  return p;
};

// Runs in the sandbox on each view parse and set answer: the methods call the codec back.
const DECORATE = `(view, call) => {
  if (!view || typeof view !== "object") return view;
  Object.defineProperties(view, {
    get: { value: (p) => call("hl7.get", view, p) ?? undefined },
    getAll: { value: (p) => call("hl7.getAll", view, p) },
    set: { value: (p, value) => { view.segments = call("hl7.set", view, p, value).segments; return view; } },
  });
  return view;
}`;

export const HL7_CODE_HELPERS: CodeHelpers = {
  "hl7.parse": { call: ([text]) => viewOf(parse(text)), decorate: DECORATE },
  "hl7.get": { call: ([view, p]) => pathCall(() => messageOf(view).get(path(p))) ?? null },
  "hl7.getAll": { call: ([view, p]) => pathCall(() => messageOf(view).getAll(path(p))) },
  "hl7.set": {
    call: ([view, p, value]) => {
      const m = messageOf(view);
      pathCall(() => m.set(path(p), value === null || value === undefined ? "" : String(value)));
      return viewOf(m);
    },
  },
  "hl7.encode": { call: ([view, options]) => messageOf(view).toString({ lineEnd: (options as { lineEnd?: unknown } | undefined)?.lineEnd === "\n" ? "\n" : "\r" }) },
  "hl7.ack": {
    call: ([view, code, text]) => {
      const ack = (code ?? "AA") as AckCode;
      if (!ACK_CODES.has(ack)) throw new ApiError(400, "HL7_INVALID_ACK_CODE", `An ACK code is one of ${[...ACK_CODES].join(", ")}`);
      return buildAck(messageOf(view), ack, typeof text === "string" ? text : undefined).toString();
    },
  },
};
