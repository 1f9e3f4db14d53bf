// Runs test/fixtures/fresh-runtime's two visits in one workerd (the worker-runtime-check project:
// isolate false, one vitest worker), first → second, then second → first, and prints what each
// test did as JSON: for test/unit/suite/fresh-runtime.test.ts, which runs this in a child process
// (vitest's Node API does not run inside a vitest worker).
import path from "node:path";
import { BaseSequencer, type TestSpecification, createVitest } from "vitest/node";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const PROJECT = "worker-runtime-check";

/** Keeps the files in the order they are given. */
class GivenOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    return files;
  }
}

export interface VisitResult {
  order: string[];
  file: string;
  test: string;
  state: string;
  errors: string[];
  visits: unknown;
}

const vitest = await createVitest("test", { root: ROOT, watch: false, project: [PROJECT], reporters: [], sequence: { sequencer: GivenOrder } });
const results: VisitResult[] = [];
let unhandled: string[] = [];
try {
  const project = vitest.getProjectByName(PROJECT);
  for (const order of [["first", "second"], ["second", "first"]]) {
    const specs = order.map((name) => project.createSpecification(path.join(ROOT, `test/fixtures/fresh-runtime/${name}.fixture.ts`)));
    const run = await vitest.runTestSpecifications(specs);
    unhandled = [...unhandled, ...run.unhandledErrors.map(String)];
    for (const module of run.testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        results.push({ order, file: path.basename(module.moduleId), test: test.name, state: result.state, errors: (result.errors ?? []).map((e) => e.message), visits: (test.meta() as { visits?: unknown }).visits });
      }
    }
  }
} finally {
  await vitest.close();
}
console.log(JSON.stringify({ results, unhandled }));
// What passed and failed is in the JSON (vitest set a failing exit code for failures).
process.exit(0);
