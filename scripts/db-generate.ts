// `npm run db:generate -- --name <name>`: drizzle-kit generates the next migration of each set
// (data tables on the shards, control tables on the control database) with the same name. An npm
// script chaining the two commands would pass the arguments to the last one only.
import { spawnSync } from "node:child_process";

const args = process.argv.slice(2);
for (const config of ["drizzle.config.ts", "drizzle.control.config.ts"]) {
  const run = spawnSync("npx", ["drizzle-kit", "generate", "--config", config, ...args], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
