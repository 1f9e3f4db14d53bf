// Write preconditions and plans shared by single interactions (service.ts) and bundles
// (transaction.ts). Kept apart so the transaction runner needs nothing at runtime from
// the service that calls it.
import { badRequest, preconditionFailed } from "../../platform/errors";
import type { AuditInput } from "./audit";
import type { Resource, WriteResult } from "./port";
import { newResourceId } from "./resource-id";
import type { StoredVersion, VersionWrite } from "./storage/resource-store";

/** A write prepared for a batch: the version it stores and what it will answer once committed. */
export interface PlannedWrite {
  write: VersionWrite;
  result: WriteResult;
  /** null for a delete. */
  resource: Resource | null;
  /** A delete's last version before it (what the change hook reports). */
  last?: Resource & { id: string };
  type: string;
  id: string;
  versionId: number;
  lastUpdated: string;
  audit: AuditInput;
  /** The If-Match the write was planned under: losing a race to another writer is then a 412. */
  ifMatch?: string;
}

/** Parses an ETag-style version ("W/\"3\"", "\"3\"" or "3"). */
export function parseVersion(tag: string): string {
  return tag.replace(/^W\//, "").replace(/"/g, "").trim();
}

/** 412 unless `ifMatch` (when given) names the current version of a resource that is not deleted. */
export function checkIfMatch(ifMatch: string | undefined, current: StoredVersion | undefined): void {
  if (ifMatch === undefined) return;
  const live = current && !current.deleted ? current : undefined;
  if (live && String(live.versionId) === parseVersion(ifMatch)) return;
  throw preconditionFailed(`If-Match ${ifMatch} does not match the current version ${live ? live.versionId : "(none)"}`);
}

/** The plan, marked as made under `ifMatch`. */
export function underIfMatch(plan: PlannedWrite, ifMatch: string | undefined): PlannedWrite {
  return ifMatch === undefined ? plan : { ...plan, ifMatch };
}

/** The id a conditional update writes, given its matches: the single match, the body's id, or a new one. */
export function conditionalUpdateTarget(resource: Resource, ids: string[]): string {
  if (ids.length > 1) throw preconditionFailed(`The conditional update matched ${ids.length} resources`);
  if (ids.length === 1) {
    if (resource.id && resource.id !== ids[0]) throw badRequest(`The body's id ${resource.id} differs from the matched resource ${ids[0]}`);
    return ids[0]!;
  }
  return resource.id ?? newResourceId();
}
