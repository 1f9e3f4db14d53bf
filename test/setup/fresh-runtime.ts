// Before each Worker test file: the runtime as fresh as a new one (test/support/fresh-runtime.ts),
// migrated, with the isolate's seams back on the real wiring.
import { freshRuntime } from "../support/fresh-runtime";

await freshRuntime();
