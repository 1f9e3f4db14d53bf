// `npm run check:cycles`: fails when the Worker, its Durable Objects or the MLLP bridge
// have a runtime import cycle (a module that, through its imports, imports itself).
import { runtimeImportCycles } from "./lib/import-cycles";

const cycles = await runtimeImportCycles(process.cwd());
if (cycles.length) {
  console.error(`${cycles.length} runtime import cycle(s):`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(" -> ")}`);
  process.exit(1);
}
console.log("No runtime import cycle.");
