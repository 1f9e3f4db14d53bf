// The Worker's per-reading answer read back into the bridge's per-message verdicts: created and
// updated (a changed record's new version) are stored, duplicate is settled, rejected keeps its reasons.
import { describe, expect, it } from "vitest";
import type { QueuedMessage } from "../src/message-queue";
import { deviceReadingsTarget } from "../src/protocols/device-readings/adapter";

const message = (seq: number): QueuedMessage => ({ protocol: "device-readings", sender: "dev-1", controlId: `m${seq}`, messageType: null, raw: "{}", receivedAt: "2026-11-28T10:00:00Z", listener: "mqtt", remoteAddress: "127.0.0.1", seq, id: `id-${seq}` });

describe("device readings: the Worker's answer per message", () => {
  it("settles created and updated as accepted, duplicate as duplicate, rejected with its reasons", () => {
    const messages = [message(1), message(2), message(3), message(4)];
    const answer = {
      results: [
        { index: 0, status: "created", observation_id: "o1" },
        { index: 1, status: "updated", observation_id: "o2" },
        { index: 2, status: "duplicate", observation_id: "o3" },
        { index: 3, status: "rejected", errors: [{ path: "readings[3].metric", message: "unknown metric" }] },
      ],
    };
    expect(deviceReadingsTarget.readResults?.(answer, messages)).toEqual([
      { id: "id-1", status: "accepted", serverMessageId: "o1" },
      { id: "id-2", status: "accepted", serverMessageId: "o2" },
      { id: "id-3", status: "duplicate", serverMessageId: "o3" },
      { id: "id-4", status: "rejected", code: "READING_REJECTED", message: "readings[3].metric: unknown metric" },
    ]);
  });
});
