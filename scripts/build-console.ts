// `npm run console:build`: the web console into console/dist (scripts/lib/console-build.ts), safe
// while a service serves console/dist.
import { buildConsole } from "./lib/console-build";

buildConsole();
