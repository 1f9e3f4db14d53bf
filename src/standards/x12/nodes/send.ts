// X12 send: POSTs an interchange to a clearinghouse's REST endpoint through an http
// connector (its auth, the outbound guard) and reads the TA1/999 it answers with. Two
// body forms, as clearinghouse APIs take them: the raw interchange (application/edi-x12),
// or JSON {"x12": "ISA*..."} (the "raw X12" endpoints of REST clearinghouses).
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { el, type X12Document } from "../model";
import { tokenize } from "../tokenize";
import { INTERCHANGE_IN, inputText } from "./input";

/** The acknowledgments in an answer: TA104 per interchange, AK901 per 999 group. */
export function acknowledgmentCodes(doc: X12Document): { ta1: string[]; ak9: string[] } {
  const ta1 = doc.interchanges.flatMap((ix) => (ix.ta1 ?? []).map((s) => el(s, 4)));
  const ak9 = doc.interchanges.flatMap((ix) => ix.groups.flatMap((g) => g.transactions.filter((t) => el(t.st, 1) === "999").map((t) => el(t.body.find((s) => s.id === "AK9"), 1))));
  return { ta1, ak9 };
}

/** The X12 an answer carries (raw, or as JSON under x12), or undefined. */
function answeredX12(text: string): string | undefined {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("ISA")) return trimmed;
  try {
    const json = JSON.parse(text) as { x12?: unknown };
    return typeof json?.x12 === "string" && json.x12.trimStart().startsWith("ISA") ? json.x12 : undefined;
  } catch {
    return undefined;
  }
}

export const x12Send = defineNode({
  id: "x12.send",
  name: "X12 send (clearinghouse)",
  category: "claims",
  description:
    "Sends an X12 interchange to a clearinghouse or payer REST endpoint through an http connector (raw application/edi-x12 body, or JSON {\"x12\": ...}) and reads the TA1/999 in the answer. A rejecting acknowledgment (TA1 R, 999 AK9 R) fails the node with X12_REJECTED by default.",
  keywords: ["x12", "edi", "send", "submit", "clearinghouse", "payer", "837", "270", "http", "outbound"],
  inputs: INTERCHANGE_IN,
  outputs: [{ name: "output", type: "json", description: "{status, acknowledgment, ta1, ak9, body}" }],
  config: z
    .object({
      connector_id: z.string().min(1).describe("An http connector whose endpoint is the clearinghouse's API base"),
      path: z.string().max(500).default("").describe("Path under the connector's endpoint, e.g. claims/raw-x12"),
      body: z.enum(["raw", "json"]).default("raw").describe("raw: the interchange as application/edi-x12; json: {\"x12\": interchange}"),
      require_accept: z.boolean().default(true).describe("Fail with X12_REJECTED when an acknowledgment in the answer rejects"),
    })
    .strict(),
  documentation: {
    summary:
      "Test mode reports the request as a would-write to x12:<connector_id> and sends nothing. Errors: X12_SEND_FAILED (non-2xx answer), X12_REJECTED (TA1 or 999 rejects), DESTINATION_NOT_ALLOWED (outbound guard).",
    example: { config: { connector_id: "6f1c…", path: "claims/raw-x12", body: "json" }, outputs: { output: { status: 200, ta1: ["A"], ak9: ["A"] } } },
  },
  run: async (ctx) => {
    const text = await inputText(ctx.inputs.interchange, ctx.services.files);
    if (!text.trimStart().startsWith("ISA")) throw new ApiError(400, "X12_INPUT_INVALID", "The interchange to send does not start with ISA");
    const c = ctx.config;
    // Resolved in test mode too: an unknown (or another organization's) connector fails either way.
    await ctx.services.connectors.endpoint(c.connector_id);
    const request =
      c.body === "json" ? { headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify({ x12: text }) } : { headers: { "content-type": "application/edi-x12", accept: "application/edi-x12, application/json, text/plain" }, body: text };
    if (ctx.testMode) {
      ctx.wouldWrite(`x12:${c.connector_id}`, { path: c.path, ...request });
      return { outputs: { output: { status: null, acknowledgment: null, ta1: [], ak9: [], body: "test mode: not sent" } } };
    }
    const res = await ctx.services.connectors.fetch(c.connector_id, c.path, { method: "POST", ...request, signal: ctx.signal });
    const answer = await res.text();
    if (!res.ok) throw new ApiError(502, "X12_SEND_FAILED", `The receiver answered HTTP ${res.status}: ${answer.replace(/\s+/g, " ").slice(0, 300)}`);
    const ack = answeredX12(answer);
    const codes = ack ? acknowledgmentCodes(tokenize(ack).document) : { ta1: [], ak9: [] };
    if (c.require_accept && [...codes.ta1, ...codes.ak9].includes("R")) throw new ApiError(502, "X12_REJECTED", `The receiver rejected the interchange (TA1 ${codes.ta1.join(",") || "-"}, 999 AK9 ${codes.ak9.join(",") || "-"})`);
    return { outputs: { output: { status: res.status, acknowledgment: ack ?? null, ...codes, body: ack ? null : answer.slice(0, 10_000) } } };
  },
});
