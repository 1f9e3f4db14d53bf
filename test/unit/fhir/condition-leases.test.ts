// The conditional-write protocol: no lease when every condition matched; a second, leased pass
// when a condition would create; the union of keys when the second pass needs another one; and,
// when the write names its conditions, leases taken before the first pass for those not seen matching.
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/platform/env";
import { conditionKey, withConditionLeases } from "../../../src/features/fhir/conditional-lock";

function fakeGate() {
  const held = new Map<string, string>();
  const calls: { op: string; keys: string[] }[] = [];
  const stub = {
    acquireLeases(_orgId: string, keys: string[], holder: string) {
      calls.push({ op: "acquire", keys: [...keys] });
      if (keys.some((k) => held.has(k) && held.get(k) !== holder)) return { acquired: false };
      for (const k of keys) held.set(k, holder);
      return { acquired: true };
    },
    releaseLeases(_orgId: string, keys: string[]) {
      calls.push({ op: "release", keys: [...keys] });
      for (const k of keys) held.delete(k);
    },
  };
  const env = { ORG_GATE: { idFromName: (n: string) => n, get: () => stub } } as unknown as Env;
  return { env, calls, held };
}

describe("condition leases", () => {
  it("normalises a condition: type prefix and parameter order do not matter", async () => {
    expect(await conditionKey("Patient", "Patient?identifier=a|1&name=x")).toBe(await conditionKey("Patient", "name=x&identifier=a|1"));
    expect(await conditionKey("Patient", "identifier=a|1")).not.toBe(await conditionKey("Patient", "identifier=a|2"));
    expect(await conditionKey("Patient", "identifier=a|1")).not.toBe(await conditionKey("Practitioner", "identifier=a|1"));
  });

  it("takes no lease when every condition matched", async () => {
    const { env, calls } = fakeGate();
    let passes = 0;
    const value = await withConditionLeases(env, "org", async () => {
      passes++;
      return { creates: [], finish: async () => "updated" };
    });
    expect(value).toBe("updated");
    expect(passes).toBe(1);
    expect(calls).toEqual([]);
  });

  it("matches again under the lease before creating, and releases it", async () => {
    const { env, calls, held } = fakeGate();
    const key = await conditionKey("Patient", "identifier=a|1");
    const finished: number[] = [];
    let passes = 0;
    await withConditionLeases(env, "org", async () => {
      const pass = ++passes;
      return { creates: [key], finish: async () => void finished.push(pass) };
    });
    expect(passes).toBe(2);
    expect(finished).toEqual([2]); // only the leased pass commits
    expect(calls).toEqual([
      { op: "acquire", keys: [key] },
      { op: "release", keys: [key] },
    ]);
    expect(held.size).toBe(0);
  });

  it("retries with the union of keys when the leased pass needs a condition the first did not", async () => {
    const { env, calls } = fakeGate();
    let passes = 0;
    const value = await withConditionLeases(env, "org", async () => {
      passes++;
      return { creates: passes === 1 ? ["a"] : ["a", "b"], finish: async () => passes };
    });
    expect(value).toBe(3);
    expect(calls.filter((c) => c.op === "acquire").map((c) => c.keys)).toEqual([["a"], ["a", "b"]]);
  });

  it("waits while another writer holds the same condition", async () => {
    const { env, held, calls } = fakeGate();
    held.set("a", "someone-else");
    let released = false;
    setTimeout(() => {
      held.delete("a");
      released = true;
    }, 30);
    let finishedAfterRelease: boolean | undefined;
    await withConditionLeases(env, "org", async () => ({
      creates: ["a"],
      finish: async () => {
        finishedAfterRelease = released;
      },
    }));
    expect(finishedAfterRelease).toBe(true);
    expect(calls.filter((c) => c.op === "acquire").length).toBeGreaterThan(1);
  });

  describe("with the write's conditions named up front", () => {
    it("leases a condition not seen matching before the first pass, so creating takes one pass", async () => {
      const { env, calls, held } = fakeGate();
      let passes = 0;
      const value = await withConditionLeases(
        env,
        `org-${crypto.randomUUID()}`,
        async () => {
          passes++;
          return { creates: ["new"], finish: async () => held.has("new") };
        },
        ["new"],
      );
      expect(value).toBe(true); // committed while holding the lease
      expect(passes).toBe(1);
      expect(calls).toEqual([
        { op: "acquire", keys: ["new"] },
        { op: "release", keys: ["new"] },
      ]);
    });

    it("expects a condition seen matching (or created) to match again: no lease, one pass", async () => {
      const { env, calls } = fakeGate();
      const org = `org-${crypto.randomUUID()}`;
      await withConditionLeases(env, org, async () => ({ creates: ["c"], finish: async () => undefined }), ["c"]);
      calls.length = 0;
      let passes = 0;
      await withConditionLeases(
        env,
        org,
        async () => {
          passes++;
          return { creates: [], finish: async () => undefined };
        },
        ["c"],
      );
      expect(passes).toBe(1);
      expect(calls).toEqual([]);
    });

    it("when a condition expected to match creates after all, it matches again under the lease before committing", async () => {
      const { env, calls } = fakeGate();
      const org = `org-${crypto.randomUUID()}`;
      await withConditionLeases(env, org, async () => ({ creates: [], finish: async () => undefined }), ["gone"]);
      calls.length = 0;
      const committed: number[] = [];
      let passes = 0;
      await withConditionLeases(
        env,
        org,
        async () => {
          const pass = ++passes;
          return { creates: ["gone"], finish: async () => void committed.push(pass) };
        },
        ["gone"],
      );
      expect(committed).toEqual([2]);
      expect(calls).toEqual([
        { op: "acquire", keys: ["gone"] },
        { op: "release", keys: ["gone"] },
      ]);
    });

    it("a pass needing a condition it did not lease runs again holding both", async () => {
      const { env, calls } = fakeGate();
      const org = `org-${crypto.randomUUID()}`;
      await withConditionLeases(env, org, async () => ({ creates: [], finish: async () => undefined }), ["seen"]);
      calls.length = 0;
      let passes = 0;
      const value = await withConditionLeases(
        env,
        org,
        async () => {
          passes++;
          return { creates: ["unseen", "seen"], finish: async () => passes };
        },
        ["unseen", "seen"],
      );
      expect(value).toBe(2);
      expect(calls.filter((c) => c.op === "acquire").map((c) => c.keys)).toEqual([["unseen"], ["unseen", "seen"]]);
    });
  });
});
