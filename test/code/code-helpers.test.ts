// ctx.hl7 and ctx.x12 of a code.javascript node: the service's own codecs (handed to the code
// feature by the composition root) over plain JSON views, their calls counted, a codec failure
// the node's error with the codec's code (or err.code when caught), and a code that throws a
// codec-looking code itself never naming the node's error.
import { describe, expect, it } from "vitest";
import ADT from "../fixtures/hl7v2/ADT-A01-01.hl7?raw";
import P837 from "../fixtures/x12/837P-subscriber.x12?raw";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

const pipeline = (source: string, limits?: Record<string, number>) =>
  definition([trigger(), { id: "js", type: "code.javascript", config: { code: source, ...(limits ? { limits } : {}) } }], [edge("start", "js", "event")]);

describe("code.javascript ctx.hl7 and ctx.x12", () => {
  it("parses HL7 v2 into a JSON view with get/getAll/set, encodes it back and builds its ACK", async () => {
    const t = await createTenant();
    const pid = await createPipeline(
      t,
      pipeline(`export default function (input, ctx) {
  const m = ctx.hl7.parse(input.text);
  const mrn = m.get("PID-3.1");
  m.set("PID-5.1", "CHANGED");
  const again = ctx.hl7.parse(ctx.hl7.encode(m));
  const ack = ctx.hl7.parse(ctx.hl7.ack(m, "AA", "fine"));
  return { type: m.type, trigger: m.trigger, mrn, family: again.get("PID-5.1"), names: again.getAll("PID-5.1").length, pid: m.segments.find((s) => s.name === "PID").fields[0], ack: ack.get("MSA-1"), acked: ack.get("MSA-2"), control: m.controlId };
}`),
    );
    const { body } = await run(t, pid, { text: ADT });
    expect(body).toMatchObject({ status: "completed" });
    const out = (body as unknown as { outputs: { js: { output: Record<string, unknown> } } }).outputs.js.output;
    expect(out).toMatchObject({ type: "ADT", trigger: "A01", pid: "PID", family: "CHANGED", names: 2, ack: "AA" });
    expect(out.mrn).toEqual(expect.any(String));
    expect(out.acked).toBe(out.control);
  });

  it("parses X12 into X12 parse's JSON model and builds it back to text that parses the same", async () => {
    const t = await createTenant();
    const pid = await createPipeline(
      t,
      pipeline(`export default function (input, ctx) {
  const doc = ctx.x12.parse(input.text);
  const text = ctx.x12.build(doc);
  const back = ctx.x12.parse(text);
  const tx = doc.interchanges[0].groups[0].transactions[0];
  return { valid: doc.valid, set: tx.set, same: JSON.stringify(back.interchanges[0].groups[0].transactions) === JSON.stringify(doc.interchanges[0].groups[0].transactions), starts: text.slice(0, 3) };
}`),
    );
    const { body } = await run(t, pid, { text: P837 });
    expect(body).toMatchObject({ status: "completed", outputs: { js: { output: { valid: true, set: "837P", same: true, starts: "ISA" } } } });
  });

  it("a codec failure not caught is the node's error with the codec's code; caught, it is err.code", async () => {
    const t = await createTenant();
    const bad = await createPipeline(t, pipeline(`export default (input, ctx) => ctx.hl7.parse("not hl7")`));
    expect((await run(t, bad)).body).toMatchObject({ status: "failed", error: { code: "HL7_NO_MSH", node_id: "js" } });
    const x12 = await createPipeline(t, pipeline(`export default (input, ctx) => ctx.x12.build({ nothing: true })`));
    expect((await run(t, x12)).body).toMatchObject({ status: "failed", error: { code: "X12_INPUT_INVALID" } });
    const caught = await createPipeline(t, pipeline(`export default (input, ctx) => { try { ctx.hl7.parse("MSH|^~\\\\&|A").get("PID-x"); } catch (e) { return { code: e.code ?? null, message: e.message }; } }`));
    expect((await run(t, caught)).body).toMatchObject({ status: "completed", outputs: { js: { output: { code: expect.stringMatching(/^HL7_/) } } } });
    const forged = await createPipeline(t, pipeline(`export default () => { const e = new Error("mine"); e.code = "HL7_NO_MSH"; throw e; }`));
    expect((await run(t, forged)).body).toMatchObject({ status: "failed", error: { code: "CODE_ERROR", message: "mine" } });
  });

  it("helper calls count against helperCalls: over it the run is CODE_LIMIT even if the code catches", async () => {
    const t = await createTenant();
    const pid = await createPipeline(t, pipeline(`export default (input, ctx) => { for (let i = 0; i < 10; i++) { try { ctx.hl7.parse(input.text); } catch {} } return "done"; }`, { helperCalls: 3 }));
    expect((await run(t, pid, { text: ADT })).body).toMatchObject({ status: "failed", error: { code: "CODE_LIMIT", message: expect.stringContaining("ctx.hl7/ctx.x12") } });
  });
});
