// The import-cycle check of `npm run check`: it reports a cycle of value imports and one
// closed only by `import type` (issue #35: types tie modules together too), and finds none in the service.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { importCycles } from "../../../scripts/lib/import-cycles";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const scratch = mkdtempSync(path.join(tmpdir(), "import-cycles-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(scratch, "p-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("import cycles", () => {
  it("reports modules that import each other's values", async () => {
    const dir = project({
      "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
      "b.ts": 'import { a } from "./a";\nexport const b = () => a;\n',
    });
    const cycles = await importCycles(dir, ["*.ts"]);
    expect(cycles.map((files) => [...files].sort())).toEqual([["a.ts", "b.ts"]]);
  });

  it("reports a cycle closed only by type imports", async () => {
    const dir = project({
      "a.ts": 'import { b } from "./b";\nexport interface A { n: number }\nexport const a = () => b;\n',
      "b.ts": 'import type { A } from "./a";\nexport const b = (x: A) => x.n;\n',
    });
    expect((await importCycles(dir, ["*.ts"])).map((files) => [...files].sort())).toEqual([["a.ts", "b.ts"]]);
  });

  // Parses the whole tree: seconds on a loaded machine, so not the default 5 s.
  it("finds none in the Worker (with its Durable Objects) and the MLLP bridge", { timeout: 60_000 }, async () => {
    expect(await importCycles(ROOT)).toEqual([]);
  });
});
