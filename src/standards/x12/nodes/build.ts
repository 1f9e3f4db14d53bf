// X12 build: JSON to X12 text. Takes X12 parse's output back (same envelope, sets from
// their loops) or a short form naming the parties and each set's segments; trailer counts
// and control numbers are computed. What it wrote is read back and its issues reported.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { envelope, writeX12 } from "../build";
import { documentFromJson, type InterchangeJson } from "../document-json";
import { type JsonSegment, segmentFromJson } from "../json";
import type { X12Document } from "../model";
import { readX12 } from "../read";
import { controlFromId } from "./from-fhir";
import { issueJson, rethrowX12 } from "./input";

const Element = z.union([z.string(), z.array(z.string()), z.object({ repeats: z.array(z.union([z.string(), z.array(z.string())])) })]);
const SegmentJson = z.object({ id: z.string().regex(/^[A-Z0-9]{2,3}$/), elements: z.array(Element) });
type LoopShape = { loop: string; name: string; children: (z.infer<typeof SegmentJson> | LoopShape)[] };
const LoopJson: z.ZodType<LoopShape> = z.lazy(() => z.object({ loop: z.string(), name: z.string(), children: z.array(z.union([SegmentJson, LoopJson])) }));

const ParsedForm = z.object({
  interchanges: z
    .array(
      z.object({
        isa: SegmentJson,
        delimiters: z.object({ element: z.string().length(1), component: z.string().length(1), repetition: z.string().length(1).optional(), segment: z.string().length(1) }).optional(),
        ta1: z.array(SegmentJson).optional(),
        groups: z.array(z.object({ gs: SegmentJson, transactions: z.array(z.object({ st: SegmentJson, loops: LoopJson.optional(), segments: z.array(SegmentJson).optional() })) })),
      }),
    )
    .min(1),
});

const ShortForm = z.object({
  sender: z.string().min(1).max(15),
  receiver: z.string().min(1).max(15),
  control: z.number().int().min(1).max(999_999_999).optional(),
  usage: z.enum(["P", "T"]).optional(),
  sets: z.array(z.object({ set: z.string().regex(/^\d{3}$/), version: z.string().min(1).max(12), st03: z.boolean().optional(), segments: z.array(SegmentJson).min(1) })).min(1),
});

/** The document X12 build writes from JSON: X12 parse's model, or the short form (control numbers from `id`). */
export function x12DocumentOf(value: unknown, executionId: string): X12Document {
  const parsed = ParsedForm.safeParse(value);
  if (parsed.success) return documentFromJson(parsed.data.interchanges as InterchangeJson[]);
  const short = ShortForm.safeParse(value);
  if (short.success) {
    const s = short.data;
    const sets = s.sets.map((t) => ({ set: t.set, version: t.version, ...(t.st03 === undefined ? {} : { st03: t.st03 }), body: t.segments.map((j) => segmentFromJson(j as JsonSegment)) }));
    return { interchanges: [envelope(sets, { sender: s.sender, receiver: s.receiver, control: s.control ?? controlFromId(executionId), ...(s.usage ? { usage: s.usage } : {}) })] };
  }
  const issue = short.error.issues[0];
  throw new ApiError(400, "X12_INPUT_INVALID", `The json input is neither X12 parse's output nor {sender, receiver, sets: [{set, version, segments}]}: ${issue?.path.join(".")} ${issue?.message}`);
}

export const x12Build = defineNode({
  id: "x12.build",
  name: "X12 build",
  category: "claims",
  description:
    "Writes X12 text from JSON: the output of X12 parse (possibly changed by a transform), or {sender, receiver, sets: [{set, version, segments}]} for a new interchange. SE, GE and IEA counts are computed; what was written is read back and checked.",
  keywords: ["x12", "edi", "build", "write", "serialize", "json", "hipaa"],
  inputs: [{ name: "json", type: "json" }],
  outputs: [
    { name: "x12", type: "x12-message" },
    { name: "report", type: "json", description: "{valid, issues} of the written file read back" },
  ],
  config: z
    .object({
      line_breaks: z.boolean().default(false).describe("Write a line break after each segment"),
      fail_on_issues: z.boolean().default(false).describe("Fail the node when the written file does not read back clean"),
    })
    .strict(),
  documentation: {
    summary: "A segment is {id, elements}; a composite element is an array of components, a repeated one {repeats: [...]}. Values holding a delimiter fail with X12_DELIMITER_IN_DATA (X12 has no escape).",
    example: {
      config: {},
      inputs: { json: { sender: "SENDER", receiver: "RECEIVER", control: 12, sets: [{ set: "270", version: "005010X279A1", segments: [{ id: "BHT", elements: ["0022", "13", "TRACE1", "20260101", "1200"] }] }] } },
    },
  },
  run: async (ctx) => {
    const doc = x12DocumentOf(ctx.inputs.json, ctx.executionId);
    let x12: string;
    try {
      x12 = writeX12(doc, ctx.config.line_breaks ? { separator: "\n" } : {});
    } catch (e) {
      rethrowX12(e);
    }
    const { issues } = readX12(x12);
    if (ctx.config.fail_on_issues && issues[0]) rethrowX12(issues[0], "The written file does not read back clean: ");
    return { outputs: { x12, report: { valid: issues.length === 0, issues: issues.map(issueJson) } } };
  },
});
