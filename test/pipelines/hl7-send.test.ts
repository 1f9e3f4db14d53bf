// hl7.send: MLLP framing as pure functions, and real sends over connect() to the
// loopback MLLP receiver that test/setup/mllp-server.ts starts in Node.
import { describe, expect, inject, it } from "vitest";
import { frame, parseMllpEndpoint, unframe } from "../../src/standards/hl7v2/mllp-framing";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const bytes = (s: string) => new TextEncoder().encode(s);
const VT = "\x0b";
const END = "\x1c\r";

describe("MLLP framing", () => {
  it("frames a message as VT message FS CR", () => {
    expect(Array.from(frame("MSH|x"))).toEqual([0x0b, ...bytes("MSH|x"), 0x1c, 0x0d]);
  });

  it("reassembles frames split anywhere, including between FS and CR", () => {
    const framed = frame("MSH|^~\\&|A\rMSA|AA|1");
    for (let i = 1; i < framed.length; i++) {
      expect(unframe(framed.subarray(0, i), framed.subarray(i))).toEqual(["MSH|^~\\&|A\rMSA|AA|1"]);
    }
    expect(unframe(...Array.from(framed, (b) => new Uint8Array([b])))).toEqual(["MSH|^~\\&|A\rMSA|AA|1"]);
  });

  it("ignores bytes before VT and reads two frames in one chunk", () => {
    expect(unframe(bytes(`\r\nnoise${VT}one${END}junk${VT}two${END}${VT}partial`))).toEqual(["one", "two"]);
  });

  it("keeps a lone FS or CR inside a frame and round-trips UTF-8", () => {
    expect(unframe(bytes(`${VT}a\x1cb\rc${END}`))).toEqual(["a\x1cb\rc"]);
    expect(unframe(frame("PID|1||Müller"))).toEqual(["PID|1||Müller"]);
  });

  it("parses mllp:// and mllps:// endpoints and rejects others", () => {
    expect(parseMllpEndpoint("mllp://127.0.0.1:2575")).toEqual({ hostname: "127.0.0.1", port: 2575, tls: false });
    expect(parseMllpEndpoint("mllps://ris.hospital.example:6661/")).toEqual({ hostname: "ris.hospital.example", port: 6661, tls: true });
    for (const bad of ["https://x.test", "mllp://host", "mllp://host:0", "mllp://host:70000"]) {
      expect(() => parseMllpEndpoint(bad)).toThrow(/not mllp/);
    }
  });
});

const message = (control: string) =>
  [`MSH|^~\\&|CDIS|CDIS|RIS|HOSP|20260316101500||ADT^A08^ADT_A01|${control}|P|2.5.1`, "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika"].join("\r");

async function mllpConnector(t: Tenant, endpoint = `mllp://127.0.0.1:${inject("mllpPort")}`) {
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "RIS", type: "mllp", endpoint } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function sendPipeline(t: Tenant, config: Record<string, unknown>) {
  return createPipeline(t, definition([trigger(), { id: "send", type: "hl7.send", config }], [edge("start", "send", "event", "message")]));
}

async function received(): Promise<string[]> {
  return ((await (await fetch(inject("mllpControlUrl"))).json()) as { received: string[] }).received;
}

describe("hl7.send over MLLP", () => {
  it("sends the message and outputs the AA acknowledgment", async () => {
    const t = await createTenant();
    const p = await sendPipeline(t, { connector_id: await mllpConnector(t) });
    const control = `OK${crypto.randomUUID().slice(0, 8)}`;
    const { body } = await run(t, p, { message: message(control) });
    expect(body.status).toBe("completed");
    const out = (body.outputs as { send: { output: { ack: string; ack_code: string; control_id: string } } }).send.output;
    expect(out).toMatchObject({ ack_code: "AA", control_id: control });
    expect(out.ack).toMatch(/^MSH\|\^~\\&\|RIS\|HOSP\|CDIS\|CDIS\|/);
    // Sent as re-encoded by the parser: every segment CR-terminated, the last one too.
    expect(await received()).toContain(`${message(control)}\r`);
  });

  it("fails the node with HL7_NACK on an AE, and passes it through when require_accept is off", async () => {
    const t = await createTenant();
    const id = await mllpConnector(t);
    const strict = await sendPipeline(t, { connector_id: id });
    const { body } = await run(t, strict, { message: message("BAD1") });
    expect(body.status).toBe("failed");
    expect(body.node_results.send?.error?.code).toBe("HL7_NACK");
    const lenient = await sendPipeline(t, { connector_id: id, require_accept: false });
    const second = await run(t, lenient, { message: message("BAD2") });
    expect(second.body.status).toBe("completed");
    expect((second.body.outputs as { send: { output: unknown } }).send.output).toMatchObject({ ack_code: "AE", control_id: "BAD2", text: "Unknown patient" });
  });

  it("times out with HL7_SEND_TIMEOUT when no ACK comes", async () => {
    const t = await createTenant();
    const p = await sendPipeline(t, { connector_id: await mllpConnector(t), timeout_ms: 500 });
    const started = Date.now();
    const { body } = await run(t, p, { message: message("SLOW1") });
    expect(body.status).toBe("failed");
    expect(body.node_results.send?.error?.code).toBe("HL7_SEND_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("fails with HL7_SEND_FAILED when the connection is refused", async () => {
    const t = await createTenant();
    // Port 1 on loopback has no listener.
    const p = await sendPipeline(t, { connector_id: await mllpConnector(t, "mllp://127.0.0.1:1"), timeout_ms: 3000 });
    const { body } = await run(t, p, { message: message("REFUSED1") });
    expect(body.status).toBe("failed");
    expect(body.node_results.send?.error?.code).toBe("HL7_SEND_FAILED");
  });

  it("in test mode reports the would-write and sends nothing", async () => {
    const t = await createTenant();
    const id = await mllpConnector(t);
    const p = await sendPipeline(t, { connector_id: id });
    const control = `TEST${crypto.randomUUID().slice(0, 8)}`;
    const { body } = await run(t, p, { message: message(control) }, { test_mode: true });
    expect(body.status).toBe("completed");
    expect(body.node_results.send?.would_write?.[0]).toEqual({ target: `mllp:${id}`, payload: `${message(control)}\r` });
    expect((await received()).some((m) => m.includes(control))).toBe(false);
  });

  it("tests an mllp connector by opening a TCP connection", async () => {
    const t = await createTenant();
    const up = await t.fetch(`/api/connectors/${await mllpConnector(t)}/test`, { method: "POST" });
    expect(await up.json()).toMatchObject({ ok: true, message: "TCP connection succeeded" });
    const down = await t.fetch(`/api/connectors/${await mllpConnector(t, "mllp://127.0.0.1:1")}/test`, { method: "POST" });
    expect(((await down.json()) as { ok: boolean }).ok).toBe(false);
  });

  it("rejects input that is not HL7 before connecting, and another organization's connector", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const idA = await mllpConnector(a);
    const notHl7 = await run(a, await sendPipeline(a, { connector_id: idA }), { message: "hello" });
    expect(notHl7.body.node_results.send?.error?.code).toBe("HL7_NO_MSH");
    const control = `XORG${crypto.randomUUID().slice(0, 8)}`;
    const { body } = await run(b, await sendPipeline(b, { connector_id: idA }), { message: message(control) });
    expect(body.status).toBe("failed");
    expect(body.node_results.send?.error?.code).toBe("CONNECTOR_NOT_FOUND");
    expect((await received()).some((m) => m.includes(control))).toBe(false);
  });
});
