import { describe, expect, it } from "vitest";
import { connectionRefusal, type PortEnd } from "../../../console/src/editor/connection-check";

const end = (node: string, port: string, type?: string): PortEnd => ({ node, port, def: type ? { name: port, type } : undefined });
const never = () => false;

describe("connectionRefusal", () => {
  it("allows what portsCompatible allows", () => {
    expect(connectionRefusal(end("a", "output", "json"), end("b", "input", "json"), never)).toBeUndefined();
    expect(connectionRefusal(end("t", "event", "trigger-event"), end("h", "message", "hl7-message"), never)).toBeUndefined();
  });

  it("names both ports' types and what the input takes", () => {
    expect(connectionRefusal(end("ack", "ack", "text"), end("x", "input", "json"), never)).toBe(
      "Not connected: ack.ack gives text, but x.input takes any structured value (not text).",
    );
    expect(connectionRefusal(end("a", "output", "json"), end("h", "message", "hl7-message"), never)).toContain("takes hl7-message, text or a trigger's event");
    expect(connectionRefusal(end("a", "output", "json"), end("t", "text", "text"), never)).toContain("takes text or any");
  });

  it("refuses a loop, a missing port and a duplicate", () => {
    expect(connectionRefusal(end("a", "output", "json"), end("a", "input", "json"), never)).toMatch(/itself/);
    expect(connectionRefusal(end("a", "nope"), end("b", "input", "json"), never)).toBe("a has no output port nope.");
    expect(connectionRefusal(end("a", "output", "json"), end("b", "input", "json"), () => true)).toMatch(/already connected/);
  });
});
