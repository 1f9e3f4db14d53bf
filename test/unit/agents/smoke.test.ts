// Real-model smoke test: runs only when an OpenAI-compatible endpoint is
// configured (LLM_BASE_URL and LLM_MODELS, optional LLM_API_KEY); skipped, and
// says so, otherwise.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collectTurn } from "../../../src/features/agents/events";
import { envModelEndpoint, resolveModel } from "../../../src/features/agents/models";
import { runAgent } from "../../../src/features/agents/run";

const endpoint = envModelEndpoint(process.env);
if (!endpoint) {
  console.log("agents smoke test skipped: set LLM_BASE_URL and LLM_MODELS to run it against a real model");
}

describe.skipIf(!endpoint)("real model smoke test", () => {
  it("answers, and calls a tool when asked to", { timeout: 180_000 }, async () => {
    const name = endpoint!.models[0]!.name;
    const { model, info } = resolveModel({ endpoints: [endpoint!] }, `env/${name}`);
    let called = false;
    const turn = await collectTurn(
      runAgent({
        model,
        modelId: info.id,
        system: "Use the terminology_lookup tool to find code displays.",
        messages: [{ role: "user", content: "What is LOINC code 8867-4? Use the tool." }],
        agentId: "smoke",
        timeoutMs: 170_000,
        tools: [
          {
            name: "terminology_lookup",
            description: "Display name of a LOINC or SNOMED code",
            input: { zod: z.object({ system: z.string(), code: z.string() }) },
            execute: async () => {
              called = true;
              return { display: "Heart rate" };
            },
          },
        ],
      }),
      (e) => new Error(`${e.code}: ${e.message}`),
    );
    expect(turn.response.length).toBeGreaterThan(0);
    console.log(`smoke: ${info.id} tool called=${called}; answer: ${turn.response.slice(0, 200)}`);
  });
});
