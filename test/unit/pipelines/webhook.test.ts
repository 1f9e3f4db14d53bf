// Which webhook trigger a delivery starts, and the inputs it gets.
import { describe, expect, it } from "vitest";
import type { Definition } from "../../../src/features/pipelines/definition";
import { webhookInputs, webhookTrigger } from "../../../src/features/pipelines/webhook";
import { ApiError } from "../../../src/platform/errors";

const node = (id: string, type: string) => ({ id, type, config: {}, on_error: "stop" as const });
const definition = (...nodes: ReturnType<typeof node>[]): Definition => ({ nodes, connections: [] });

const refusal = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected an ApiError");
};

describe("webhook trigger matching", () => {
  const twoHooks = definition(node("input", "control.input"), node("first", "control.webhook_trigger"), node("second", "control.webhook_trigger"));

  it("starts the first webhook trigger when none is named", () => {
    expect(webhookTrigger(twoHooks).id).toBe("first");
  });

  it("starts the named webhook trigger", () => {
    expect(webhookTrigger(twoHooks, "second").id).toBe("second");
  });

  it("never starts a node of another type, even when named", () => {
    const err = refusal(() => webhookTrigger(twoHooks, "input"));
    expect([err.status, err.code, err.message]).toEqual([400, "BAD_REQUEST", "The deployed version has no webhook trigger input"]);
  });

  it("refuses a version without webhook trigger", () => {
    const err = refusal(() => webhookTrigger(definition(node("input", "control.input"))));
    expect([err.status, err.message]).toEqual([400, "The deployed version has no webhook trigger"]);
  });
});

describe("webhook inputs", () => {
  const at = new Date("2026-01-02T03:04:05.000Z");

  it("passes the JSON body, its content type and the receipt time", () => {
    expect(webhookInputs('{"order":42}', "application/json", at)).toEqual({
      body: { order: 42 },
      headers: { "content-type": "application/json" },
      received_at: "2026-01-02T03:04:05.000Z",
    });
  });

  it("reads an empty body as {} and a missing content type as empty", () => {
    expect(webhookInputs("", undefined, at)).toEqual({ body: {}, headers: { "content-type": "" }, received_at: "2026-01-02T03:04:05.000Z" });
  });

  it("refuses a body that is not JSON with 400", () => {
    const err = refusal(() => webhookInputs("{not json", "application/json", at));
    expect([err.status, err.code, err.message]).toEqual([400, "BAD_REQUEST", "The webhook body is not valid JSON"]);
  });
});
