// The admin CLI's commands and their options: usage text, and argv parsed into a
// command to run, a help request, or a usage error (one line, then the usage).
import { parseArgs } from "node:util";

type Flag = "name" | "id" | "org" | "role" | "scopes" | "limits" | "shard" | "url";

interface CommandSpec {
  /** Its options as the usage shows them. */
  args: string;
  about: string;
  required: Flag[];
  optional: Flag[];
  /** Whether it reaches the database (and so takes --remote). */
  database: boolean;
}

export const COMMANDS: Record<string, CommandSpec> = {
  "create-org": {
    args: "--name NAME [--id ID] [--limits JSON] [--shard SHARD]",
    about: "creates an organization on SHARD (a DATA_SHARDS name), else on the pooled shard with the fewest orgs",
    required: ["name"],
    optional: ["id", "limits", "shard"],
    database: true,
  },
  "list-orgs": { args: "", about: "lists organizations and their shards", required: [], optional: [], database: true },
  "move-org": {
    args: "--org ID --shard SHARD [--url URL]",
    about: "moves an organization's data to another shard through the running service's operator route (OPERATOR_TOKEN); writes answer 503 meanwhile",
    required: ["org", "shard"],
    optional: ["url"],
    database: true,
  },
  "purge-audit": {
    args: "--org ID [--url URL]",
    about: "erases the org's AuditEvents older than its audit retention (PUT /api/audit/retention; default keep: refused) through the running service's operator route (OPERATOR_TOKEN); leaves an audit.purge AuditEvent",
    required: ["org"],
    optional: ["url"],
    database: true,
  },
  "set-limits": {
    args: "--org ID --limits JSON [--url URL]",
    about: `replaces per-org limit overrides through the running service (audited), e.g. '{"apiPerMinute":5000,"concurrentExports":10}'`,
    required: ["org", "limits"],
    optional: ["url"],
    database: true,
  },
  "create-key": {
    args: "--org ID --role admin|clinician|service [--name NAME] [--scopes agent/<id>:execute,...]",
    about: "creates an API key and prints it once; each scoped agent must exist in the org",
    required: ["org", "role"],
    optional: ["name", "scopes"],
    database: true,
  },
  "list-keys": { args: "--org ID", about: "lists an organization's keys (never their secrets)", required: ["org"], optional: [], database: true },
  "revoke-key": { args: "--org ID --id KEY_ID", about: "revokes a key", required: ["org", "id"], optional: [], database: true },
  "new-key-secret": { args: "", about: "prints a well-formed key (for DEV_API_KEY)", required: [], optional: [], database: false },
};

export const USAGE = [
  "Usage: npm run admin -- <command> [options] [--remote]",
  "Works on the local database (in STATE_DIR, default .wrangler/state, as npm start); --remote: on the deployed one. --help (-h) after a command: its usage.",
  "",
  ...Object.entries(COMMANDS).map(([name, spec]) => `  ${name.padEnd(15)}${spec.args}
  ${"".padEnd(15)}${spec.about}`),
].join("\n");

export function commandUsage(name: string): string {
  const spec = COMMANDS[name]!;
  const args = [spec.args, spec.database ? "[--remote]" : ""].filter(Boolean).join(" ");
  return `Usage: npm run admin -- ${name}${args ? ` ${args}` : ""}\n  ${spec.about}`;
}

/** A mistake in how the CLI was called: printed as one line and the usage, exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

export type AdminArgs =
  | { kind: "help"; text: string }
  | { kind: "run"; command: string; values: Partial<Record<Flag, string>>; remote: boolean };

const OPTIONS = {
  name: { type: "string" },
  id: { type: "string" },
  org: { type: "string" },
  role: { type: "string" },
  scopes: { type: "string" },
  limits: { type: "string" },
  shard: { type: "string" },
  url: { type: "string" },
  remote: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function strictParse(argv: string[], usage: string) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    // node:util's first sentence is the useful part ("Unknown option '--nope'"), without its advice.
    throw new UsageError((err as Error).message.split(". ")[0]!.replace(/\.$/, ""), usage);
  }
}

export function parseAdminArgs(argv: string[]): AdminArgs {
  // The command first (leniently), so an option error can show that command's usage.
  const command = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false }).positionals[0];
  const spec = command ? COMMANDS[command] : undefined;
  const usage = spec ? commandUsage(command!) : USAGE;
  const { values, positionals } = strictParse(argv, usage);
  if (values.help || !command) return { kind: "help", text: usage };
  if (!spec) throw new UsageError(`Unknown command ${command}`, USAGE);
  if (positionals.length > 1) throw new UsageError(`Unexpected argument ${positionals[1]}`, usage);
  const given = (Object.keys(values) as (keyof typeof values)[]).filter((k) => k !== "remote" && k !== "help");
  const foreign = given.find((k) => ![...spec.required, ...spec.optional].includes(k as Flag));
  if (foreign) throw new UsageError(`${command} takes no --${foreign}`, usage);
  const absent = spec.required.find((k) => !values[k]);
  if (absent) throw new UsageError(`${command} needs --${absent}`, usage);
  if (values.remote && !spec.database) throw new UsageError(`${command} takes no --remote`, usage);
  const flags = Object.fromEntries(given.map((k) => [k, values[k] as string])) as Partial<Record<Flag, string>>;
  return { kind: "run", command, values: flags, remote: values.remote ?? false };
}
