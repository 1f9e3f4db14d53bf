// The MLLP decoder on its own: every split point of a stream, several frames per read,
// noise between frames, restarts and oversize frames.
import { describe, expect, it } from "vitest";
import { CR, FS, type FrameEvent, frame, MllpDecoder, VT } from "../src/listeners/mllp/framing";

const payloads = (events: FrameEvent[]) => events.map((e) => (e.kind === "frame" ? e.payload.toString() : `oversize:${e.length}`));

describe("MllpDecoder", () => {
  const stream = Buffer.concat([
    Buffer.from("\r\njunk"),
    frame(Buffer.from("MSH|first\rPID|1")),
    Buffer.from("\n"),
    frame(Buffer.from("MSH|second")),
  ]);

  it("finds both frames wherever the stream is cut into two reads", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const decoder = new MllpDecoder(1024);
      const events = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
      expect(payloads(events), `cut at ${cut}`).toEqual(["MSH|first\rPID|1", "MSH|second"]);
    }
  });

  it("decodes a stream fed one byte at a time", () => {
    const decoder = new MllpDecoder(1024);
    const events = [...stream].flatMap((byte) => decoder.push(Buffer.of(byte)));
    expect(payloads(events)).toEqual(["MSH|first\rPID|1", "MSH|second"]);
  });

  it("ends a frame at FS even without the trailing CR, and restarts on a VT inside a frame", () => {
    const decoder = new MllpDecoder(1024);
    const bytes = Buffer.concat([Buffer.of(VT), Buffer.from("lost"), Buffer.of(VT), Buffer.from("kept"), Buffer.of(FS)]);
    expect(payloads(decoder.push(bytes))).toEqual(["kept"]);
  });

  it("reports an oversize frame with its head and length, then decodes the next frame", () => {
    const decoder = new MllpDecoder(10);
    const big = frame(Buffer.from("MSH|0123456789abcdef"));
    const events = [
      ...decoder.push(big.subarray(0, 8)),
      ...decoder.push(big.subarray(8)),
      ...decoder.push(frame(Buffer.from("MSH|ok"))),
    ];
    expect(payloads(events)).toEqual(["oversize:20", "MSH|ok"]);
    const [oversize] = events;
    expect(oversize?.kind === "oversize" && oversize.head.toString()).toBe("MSH|0123456789abcdef");
  });

  it("wraps a payload as VT payload FS CR", () => {
    expect([...frame(Buffer.from("A"))]).toEqual([VT, 0x41, FS, CR]);
  });
});
