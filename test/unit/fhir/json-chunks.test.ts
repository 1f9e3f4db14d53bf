// jsonChunks: a row D1 could not bind (over 2,000,000 bytes once JSON-encoded) is a 413, not SQLITE_TOOBIG.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/errors";
import { jsonChunks } from "../../../src/features/fhir/storage/index-statements";

describe("jsonChunks", () => {
  it("answers 413 for a row whose escaping takes it over D1's value limit", () => {
    // 1,000,000 quotes: a string under a megabyte, two once escaped in the row's JSON.
    const row = ["fhir_idx_string", "family", '"'.repeat(1_000_000)];
    let thrown: unknown;
    try {
      jsonChunks([row]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(413);
  });

  it("gives a large row that fits a chunk of its own", () => {
    const chunks = jsonChunks([["a"], ["b".repeat(900_000)], ["c"]]);
    expect(chunks.map((c) => (JSON.parse(c) as unknown[]).length)).toEqual([1, 1, 1]);
  });
});
