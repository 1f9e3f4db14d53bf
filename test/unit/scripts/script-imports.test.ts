// Scripts that need no Miniflare do not load it: its single bundled module takes seconds to
// load on a busy machine, which every admin command and `npm run dev` start would pay.
import path from "node:path";
import { parseDependencyTree } from "dpdm";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** The packages the runtime imports reachable from `entries` reach, by resolved file. */
async function packagesReached(entries: string[]): Promise<string[]> {
  const tree = await parseDependencyTree(entries, { cwd: ROOT, context: ROOT, transform: true, tsconfig: undefined });
  const ids = Object.values(tree).flatMap((deps) => (deps ?? []).map((d) => d.id ?? ""));
  return [...new Set(ids.filter((id) => id.includes("node_modules/")))];
}

describe("script imports", () => {
  it("the admin CLI and npm run dev do not load Miniflare; npm start does", async () => {
    expect((await packagesReached(["scripts/admin.ts", "scripts/dev.ts"])).filter((id) => id.includes("node_modules/miniflare/"))).toEqual([]);
    expect((await packagesReached(["scripts/start.ts"])).some((id) => id.includes("node_modules/miniflare/"))).toBe(true);
  }, 60_000);
});
