// `npm run check:cycles`: fails when the Worker, its Durable Objects or the MLLP bridge
// have an import cycle, type imports included (a module that, through its imports, imports itself).
import { importCycles } from "./lib/import-cycles";

const cycles = await importCycles(process.cwd());
if (cycles.length) {
  console.error(`${cycles.length} import cycle(s):`);
  for (const cycle of cycles) console.error(`  ${[...cycle, cycle[0]].join(" -> ")}`);
  process.exit(1);
}
console.log("No import cycle.");
