// Per isolate: the current version of resources this isolate last read or wrote, so an update by
// id can be planned without reading it first (one D1 round trip instead of two). Never trusted
// as the truth, only as a guess: versions are immutable, and the history primary key (org, type,
// id, version) refuses a second version n+1, so an update planned on a stale entry (another
// isolate wrote since) collides, fails whole and is planned again on a fresh read (service.ts).
// Keyed by shard and organization first: an entry never serves another org.
import type { StoredVersion } from "./resource-store";

/** Entries kept per isolate (the oldest go first). */
const MAX_ENTRIES = 1_000;
/** Larger resources are not kept: a miss costs one read, an entry its bytes for the isolate's life. */
export const MAX_SEEN_CONTENT = 16 * 1024;

export class SeenVersions {
  private readonly entries = new Map<string, StoredVersion>();

  private static key(shard: string, orgId: string, type: string, id: string): string {
    return `${shard}\u0000${orgId}\u0000${type}\u0000${id}`;
  }

  /** The live version last seen, if any (a deleted one is not kept). */
  get(shard: string, orgId: string, type: string, id: string): StoredVersion | undefined {
    return this.entries.get(SeenVersions.key(shard, orgId, type, id));
  }

  /**
   * Remembers a version as current; a deletion or a large resource forgets the entry instead. An
   * older version than the one kept (a read from a lagging replica) leaves the entry as it is.
   */
  set(shard: string, orgId: string, v: StoredVersion): void {
    const key = SeenVersions.key(shard, orgId, v.resourceType, v.id);
    if ((this.entries.get(key)?.versionId ?? 0) > v.versionId) return;
    this.entries.delete(key);
    if (v.deleted || v.content.length > MAX_SEEN_CONTENT) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, v);
  }

  forget(shard: string, orgId: string, type: string, id: string): void {
    this.entries.delete(SeenVersions.key(shard, orgId, type, id));
  }
}

/** This isolate's entries. */
export const seenVersions = new SeenVersions();
