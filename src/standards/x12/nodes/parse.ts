// X12 Parse: a file to the JSON model (interchanges → groups → sets as TR3 loops), every
// issue with its place, and the 999/TA1 answering it. Issues are data here; `strict` makes
// the first one fail the node instead (X12_<code>, naming loop, segment and element).
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { readToJson } from "../document-json";
import { acknowledgementText } from "./acknowledgement";
import { INTERCHANGE_IN, issueJson, readInput, x12Failure } from "./input";

export const x12Parse = defineNode({
  id: "x12.parse",
  name: "X12 parse",
  category: "claims",
  description:
    "Parses an X12 EDI (HIPAA 5010) file into JSON: interchanges, functional groups and transaction sets (270/271, 276/277/277CA, 278, 835, 837P/837I) grouped into their TR3 loops, with every envelope, segment and element problem and the 999 answering them.",
  keywords: ["x12", "edi", "hipaa", "parse", "json", "loops", "837", "835", "270", "271", "claims"],
  inputs: INTERCHANGE_IN,
  outputs: [
    { name: "output", type: "json", description: "{interchanges: [{sender, receiver, control, isa, groups: [{functional_id, version, gs, transactions: [{set, st, loops}]}]}], valid, issues}" },
    { name: "ack", type: "x12-message", description: "The 999 (and TA1 when asked for or the envelope is wrong) answering the file" },
  ],
  config: z
    .object({
      strict: z.boolean().default(false).describe("Fail the node on the first issue (X12_<code>) instead of reporting issues in the output"),
    })
    .strict(),
  documentation: {
    summary:
      "A loop is {loop, name, children}; a segment {id, elements}, element 01 first, a composite an array of components, a repeated element {repeats: [...]}. X12 build writes this JSON back.",
    example: {
      config: { strict: false },
      inputs: { interchange: "ISA*00*          *00*          *ZZ*SENDER ...~GS*HC*...~ST*837*0001*005010X222A1~...~IEA*1*000000001~" },
      outputs: { output: { valid: true, issues: [], interchanges: [{ sender: "SENDER", control: "000000001", groups: [{ version: "005010X222A1", transactions: [{ set: "837P", loops: { loop: "HEADER" } }] }] }] } },
    },
  },
  run: async (ctx) => {
    const read = await readInput(ctx.inputs.interchange, ctx.services.files);
    if (ctx.config.strict && read.issues[0]) throw x12Failure(read.issues[0]);
    return {
      outputs: {
        output: { valid: read.issues.length === 0, issues: read.issues.map(issueJson), interchanges: readToJson(read) },
        ack: acknowledgementText(read),
      },
    };
  },
});
