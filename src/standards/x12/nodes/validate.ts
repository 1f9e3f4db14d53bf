// X12 Validate: envelope, loop, segment and element checks with the 999 (and TA1)
// acknowledgement to send back; `fail_on_error` routes a rejected file to the error port.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { el } from "../model";
import { acknowledgementText } from "./acknowledgement";
import { INTERCHANGE_IN, issueJson, readInput, x12Failure } from "./input";

export const x12Validate = defineNode({
  id: "x12.validate",
  name: "X12 validate (999/TA1)",
  category: "claims",
  description:
    "Checks an X12 file (ISA/IEA, GS/GE and SE control numbers and counts, TR3 loops, required segments and elements, code values) and generates the 999 implementation acknowledgment per group and the TA1 for the interchange.",
  keywords: ["x12", "edi", "validate", "999", "ta1", "acknowledgment", "ack", "hipaa", "claims"],
  inputs: INTERCHANGE_IN,
  outputs: [
    { name: "ack", type: "x12-message", description: "The 999 (and TA1) to send back to the sender" },
    { name: "report", type: "json", description: "{valid, issues: [{code, message, segmentId, element, loop, at}], sets: [{set, control, accepted}]}" },
  ],
  config: z
    .object({
      control_number: z.number().int().min(1).max(999_999_999).optional().describe("ISA13 of the acknowledgment; default the received ISA13"),
      always_ta1: z.boolean().default(false).describe("Add a TA1 even when the sender did not ask for one (ISA14 = 0) and the envelope is fine"),
      fail_on_error: z.boolean().default(false).describe("Fail the node (X12_<code>, with loop, segment and element) when the file has issues, after building the acknowledgment"),
      line_breaks: z.boolean().default(false).describe("Write a line break after each segment of the acknowledgment"),
    })
    .strict(),
  documentation: {
    summary: "IK3/IK4 name the segment position, loop and element of each problem; AK9 says A, P or R per group. Connect `ack` to X12 send, or to a respond node.",
    example: { config: { always_ta1: true }, outputs: { ack: "ISA*00*...~TA1*000000001*260101*1200*A*000~GS*FA*...~ST*999*0001*005010X231A1~AK1*HC*1*005010X222A1~AK2*837*0001*005010X222A1~IK5*A~AK9*A*1*1*1~SE*6*0001~GE*1*1~IEA*1*000000001~" } },
  },
  run: async (ctx) => {
    const read = await readInput(ctx.inputs.interchange, ctx.services.files);
    const ack = acknowledgementText(read, {
      ...(ctx.config.control_number ? { control: ctx.config.control_number } : {}),
      alwaysTa1: ctx.config.always_ta1,
      ...(ctx.config.line_breaks ? { separator: "\n" } : {}),
    });
    if (ctx.config.fail_on_error && read.issues[0]) {
      ctx.log("warn", `Acknowledgment: ${ack}`);
      throw x12Failure(read.issues[0], `${read.issues.length} issue(s); first: `);
    }
    const sets = read.transactions.map((t) => ({ set: t.table?.id ?? el(t.tx.st, 1), control: el(t.tx.st, 2), accepted: t.issues.length === 0 }));
    return { outputs: { ack, report: { valid: read.issues.length === 0, issues: read.issues.map(issueJson), sets } } };
  },
});
