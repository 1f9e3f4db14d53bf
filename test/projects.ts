// Which files each test project runs, and the one setting of the Worker suite's runtime that differs
// from wrangler.toml's. vitest.config.ts builds the projects from these; scripts/test.ts reads them
// to pick one area's files for each lane (`npm test -- devices`) without loading vitest.

/** Worker files: everything under test/ but the Node projects' folders. */
export const WORKER_INCLUDE = ["test/**/*.test.ts"];
export const WORKER_EXCLUDE = ["test/unit/**", "test/interop/**", "test/browser/**"];

/**
 * Worker files that keep a workerd of their own (the worker-isolated project; docs/testing.md says
 * why each): the data-shard moves (a move copies an organization's inbound_messages with their
 * per-shard AUTOINCREMENT seq, which collides with rows the target shard numbered for other
 * organizations: a bug of the move, being fixed) and the export failure, which drops a shard's
 * table under a running job.
 */
export const ISOLATED_WORKER_FILES = ["test/platform/shards.test.ts", "test/platform/org-mover.test.ts", "test/export/failure.test.ts"];

/**
 * Unit files that start processes (npm start, wrangler dev, tsx, the admin CLI, a workerd): the
 * unit-processes project, one file at a time within their hook budgets. Every other unit file is
 * pure and runs two at once in one module graph.
 */
export const UNIT_PROCESS_FILES = ["test/unit/scripts/**/*.test.ts", "test/unit/suite/**/*.test.ts"];

/** The Node projects' files. */
export const NODE_INCLUDE = {
  unit: ["test/unit/**/*.test.ts"],
  interop: ["test/interop/**/*.test.ts"],
  bridge: ["bridge/test/**/*.test.ts"],
  browser: ["test/browser/**/*.test.ts"],
} as const;

/**
 * The audit queue's consumer as wrangler.toml declares it, but for the batch timeout: queued
 * AuditEvents are delivered within 50 ms here (1 s deployed). Miniflare takes a queue's consumer
 * settings from the test config whole, not merged with wrangler.toml's, so all of them are repeated
 * (test/unit/suite/worker-config.test.ts checks they match wrangler.toml's).
 */
export const AUDIT_CONSUMER = { maxBatchSize: 100, maxBatchTimeout: 0.05, maxRetries: 100, deadLetterQueue: "cdis-audit-dead" };
