// The drain's short-lived cache of routing facts (triggers, limits, deployed versions).
import { describe, expect, it } from "vitest";
import { recent } from "../../src/platform/recent";

/** A thenable that, like a drizzle query builder, does its work again on every then(). */
function queryLike<T>(value: T) {
  const runs = { n: 0 };
  const thenable: PromiseLike<T> = {
    // biome-ignore lint/suspicious/noThenProperty: it imitates a query builder
    then(onFulfilled, onRejected) {
      runs.n++;
      return Promise.resolve(value).then(onFulfilled, onRejected);
    },
  };
  return { thenable, runs };
}

describe("recent", () => {
  it("runs a thenable read once while it is fresh, however often it is awaited", async () => {
    const { thenable, runs } = queryLike(["trigger"]);
    let reads = 0;
    let now = 0;
    const get = recent(
      () => {
        reads++;
        return thenable;
      },
      1_000,
      () => now,
    );
    expect(await get()).toEqual(["trigger"]);
    now = 999;
    expect(await get()).toEqual(["trigger"]);
    expect(await get()).toEqual(["trigger"]);
    expect(reads).toBe(1);
    expect(runs.n).toBe(1);
    now = 1_000;
    await get();
    expect(reads).toBe(2);
    expect(runs.n).toBe(2);
  });

  it("forgets a failed read", async () => {
    let reads = 0;
    const get = recent(() => (++reads === 1 ? Promise.reject(new Error("down")) : Promise.resolve(reads)), 1_000, () => 0);
    await expect(get()).rejects.toThrow("down");
    expect(await get()).toBe(2);
  });
});
