// The per-user buckets (agent chat, copilot) count per actor: a person when the principal names
// one, so two people behind one credential do not share a window; the credential otherwise.
import { describe, expect, it } from "vitest";
import { bucketsFor, usageBuckets } from "../../../src/features/tenancy/limits/buckets";
import { DEFAULT_LIMITS } from "../../../src/features/tenancy/limits/config";
import type { Principal } from "../../../src/platform/principal";

const key: Principal = { orgId: "o1", keyId: "k1", keyName: "console", role: "clinician", scopes: [] };
const person = (id: string): Principal => ({ ...key, user: { id, login: `${id}@example.org` } });
const chat = (p: Principal) => bucketsFor("POST", "/api/agents/a1/chat", p, DEFAULT_LIMITS).map((b) => b.name);

describe("per-user rate buckets", () => {
  it("count per key for a key without a user, per user for a user", () => {
    expect(chat(key)).toEqual(["api", "agent-chat:k1"]);
    expect(chat(person("u1"))).toEqual(["api", "agent-chat:user:u1"]);
    expect(chat(person("u2"))).not.toEqual(chat(person("u1")));
  });

  it("the usage report reads the same windows the requests count in", () => {
    const copilot = bucketsFor("POST", "/api/copilot/chat", person("u1"), DEFAULT_LIMITS).map((b) => b.name);
    expect(copilot).toContain("copilot:user:u1");
    expect(usageBuckets(person("u1"), DEFAULT_LIMITS).map((b) => b.name)).toEqual(["api", "agent-chat:user:u1", "copilot:user:u1"]);
  });
});
