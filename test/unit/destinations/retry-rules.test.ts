// The queue's retry rules as plain functions: backoff with jitter up to its ceiling, the horizon
// that dead-letters, and how HTTP statuses and HL7 ACK codes are classed.
import { describe, expect, it } from "vitest";
import { nextAttemptAt, retryDelayMs } from "../../../src/features/destinations/backoff";
import { ackResult, httpResult, isRetryable } from "../../../src/features/destinations/classify";
import { DEFAULT_RETRY } from "../../../src/features/destinations/model";

describe("backoff", () => {
  it("doubles from the initial delay, half of it jittered, up to the ceiling", () => {
    const policy = { ...DEFAULT_RETRY, initial_delay_ms: 1_000, max_delay_ms: 60_000 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(policy, n, () => 0))).toEqual([500, 1_000, 2_000, 4_000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(policy, n, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(policy, 50, () => 1)).toBe(60_000);
  });

  it("keeps retrying for the 72 h horizon by default, then answers null (dead-letter)", () => {
    const first = 0;
    const hour = 3_600_000;
    expect(nextAttemptAt(DEFAULT_RETRY, 30, first, 70 * hour, () => 0)).toBe(70 * hour + 1_800_000);
    expect(nextAttemptAt(DEFAULT_RETRY, 30, first, 72 * hour - 1_000, () => 1)).toBeNull();
  });
});

describe("classification", () => {
  it("HTTP: 2xx delivered; 408/429/5xx retried; 3xx, 410 and other 4xx permanent", () => {
    expect(httpResult(204, "").ok).toBe(true);
    const cls = (s: number) => httpResult(s, "x").failure!.class;
    expect([408, 429, 500, 503].map(cls)).toEqual(["throttled", "throttled", "server_error", "server_error"]);
    expect([301, 400, 404, 410].map(cls)).toEqual(["redirect", "client_error", "client_error", "gone"]);
    expect([408, 503].map((s) => isRetryable(cls(s)))).toEqual([true, true]);
    expect([302, 400, 410].map((s) => isRetryable(cls(s)))).toEqual([false, false, false]);
  });

  it("HL7: AA/CA delivered; codes on the retryable list retried; AR/CR permanent", () => {
    const codes = DEFAULT_RETRY.retryable_ack_codes;
    expect(ackResult("CA", "", "ack", codes).ok).toBe(true);
    expect(ackResult("AE", "bad PID", "ack", codes).failure).toEqual({ class: "nack", message: "The receiver answered AE: bad PID" });
    expect(ackResult("AR", "", "ack", codes).failure!.class).toBe("reject");
    expect(ackResult("AE", "", "ack", []).failure!.class).toBe("reject");
    expect(isRetryable("nack")).toBe(true);
    expect(isRetryable("reject")).toBe(false);
  });
});
