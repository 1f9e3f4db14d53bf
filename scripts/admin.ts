// `npm run admin -- <command> [--flags]`: creates organizations and API keys,
// lists and revokes keys, against local D1 (default) or the deployed database (--remote); sets
// per-org limits, moves organizations between shards and purges expired AuditEvents through the
// service (operator routes, so each leaves its AuditEvent). The commands: scripts/lib/admin-cli.ts.
import { adminCli } from "./lib/admin-cli";

const code = await adminCli(process.argv.slice(2), { out: (text) => console.log(text), err: (text) => console.error(text) });
if (code !== 0) process.exit(code);
