// The service an interop file runs against: the one test/browser/setup/service.ts starts for the
// interop and browser projects, as the file's own two organizations see it (the first, and the
// other as `others[0]` for cross-tenant checks).
import path from "node:path";
import { inject } from "vitest";
import type { Credentials, RunningWorker } from "../../bench/lib/worker";

export type InteropService = Omit<RunningWorker, "stop" | "pid" | "stateDir">;

/**
 * A connection per request: the service, shared by many files, closes an idle kept-alive
 * connection, and a POST sent on it just then fails with "other side closed" (fetch retries only
 * idempotent requests). The same reason as the loopback control servers' (test/setup/).
 */
export const NO_KEEP_ALIVE = { connection: "close" };

const withoutKeepAlive = (c: Credentials): Credentials => ({ ...c, headers: { ...c.headers, ...NO_KEEP_ALIVE } });

/** The shared service as an interop file sees it: its first organization, and the other as `others[0]`. */
export function interopService(file: string): InteropService {
  const orgs = inject("serviceOrgs")[path.basename(file)];
  if (!orgs) throw new Error(`${path.basename(file)} has no organizations on the shared service (test/browser/setup/service.ts seeds them for test/interop's files)`);
  const [mine, ...others] = (orgs as [Credentials, ...Credentials[]]).map(withoutKeepAlive) as [Credentials, ...Credentials[]];
  return { url: inject("consoleUrl"), ...mine, others };
}

