// Plans one version of a resource (or its deletion) without storing it: validated, judged by the
// access policy, its Binary data moved to R2, its If-Match checked. A single interaction commits
// its plan at once; a transaction plans every entry with the same code and commits them together.
import { badRequest, forbidden, unprocessable } from "../../platform/errors";
import type { AccessChecks } from "./access-checks";
import { READ_ONLY_TYPES } from "./definitions";
import { applyPatch } from "./patch";
import type { Resource, WriteResult } from "./port";
import type { FhirRepository } from "./repository";
import { deletable, writable } from "./resource-rules";
import { checkResourceSize } from "./storage/resource-size";
import type { StoredVersion } from "./storage/resource-store";
import { validateResource } from "./validate";
import { type PlannedWrite, checkIfMatch, underIfMatch } from "./write-preconditions";

const parsed = (content: string) => JSON.parse(content) as Resource;

export class WritePlanner {
  constructor(
    private readonly repository: FhirRepository,
    private readonly access: AccessChecks,
  ) {}

  /** Validates and prepares one version of a resource (id, meta, Binary offload, index rows). */
  async planWrite(resource: Resource, id: string, current: StoredVersion | undefined, interaction: "create" | "update" | "patch"): Promise<PlannedWrite> {
    // Every client write path (a patch too, single or in a bundle) ends here: server-only types stay append-only.
    if (READ_ONLY_TYPES.has(resource.resourceType)) throw forbidden(`${resource.resourceType} resources are written by the server only`);
    const versionId = (current?.versionId ?? 0) + 1;
    const lastUpdated = new Date().toISOString();
    const created = !current || current.deleted;
    const replaces = created ? undefined : parsed(current.content);
    // What the principal may not see or change stays as stored (the access policy's hidden and read-only fields).
    const written = await this.access.restored(resource, replaces);
    const meta = { ...(written.meta ?? {}), versionId: String(versionId), lastUpdated };
    const stored: Resource & { id: string } = { ...written, id, meta };
    const issues = validateResource(stored);
    if (issues.length) throw unprocessable(`${resource.resourceType} does not conform to the R4 definition`, issues);
    // An update is judged on the version it replaces as well as on the one it stores.
    if (replaces && !this.access.permitsAll) await this.access.mayWrite("update", replaces);
    await this.access.mayWrite(created ? "create" : "update", stored);
    const persisted = await this.repository.offload(stored);
    const content = checkResourceSize(persisted);
    return {
      write: { kind: "put", resource: persisted, versionId, lastUpdated, method: created ? "POST" : "PUT", replaces, content },
      // The answer shows the principal what it may see of what was stored.
      result: { resource: await this.access.shown(stored), outcome: created ? "created" : "updated" },
      resource: stored,
      type: resource.resourceType,
      id,
      versionId,
      lastUpdated,
      audit: { interaction, what: `${resource.resourceType}/${id}/_history/${versionId}`, outcome: "0" },
    };
  }

  /** An update of `resource` by id (create-on-update); `known`: its current version when the caller already read it (null: there is none). */
  async planUpdate(resource: Resource & { id: string }, ifMatch: string | undefined, interaction: "update" | "patch", known?: StoredVersion | null): Promise<PlannedWrite> {
    writable(resource);
    if (!/^[A-Za-z0-9\-.]{1,64}$/.test(resource.id)) throw badRequest(`Invalid resource id ${resource.id}`);
    const current = known === undefined ? await this.repository.current(resource.resourceType, resource.id) : (known ?? undefined);
    checkIfMatch(ifMatch, current);
    return underIfMatch(await this.planWrite(resource, resource.id, current, interaction), ifMatch);
  }

  /** `operations` (JSON Patch or FHIRPath Patch, read once If-Match holds) applied to the live version `current`. */
  async planPatch(current: StoredVersion, operations: () => unknown, ifMatch: string | undefined): Promise<PlannedWrite> {
    checkIfMatch(ifMatch, current);
    // The operations apply to what the principal may see (a test of a hidden field finds nothing); planWrite keeps the rest as stored.
    const original = await this.access.shown(await this.repository.hydrate(current.content));
    const patched = applyPatch(original, operations());
    return underIfMatch(await this.planWrite(patched, current.id, current, "patch"), ifMatch);
  }

  async planDelete(type: string, id: string, current: StoredVersion): Promise<PlannedWrite> {
    deletable(type);
    const last = parsed(current.content) as Resource & { id: string };
    if (!this.access.permitsAll) await this.access.mayWrite("delete", last);
    const versionId = current.versionId + 1;
    const lastUpdated = new Date().toISOString();
    return {
      write: { kind: "delete", type, id, versionId, lastUpdated },
      result: { resource: { resourceType: type, id }, outcome: "updated" },
      resource: null,
      last,
      type,
      id,
      versionId,
      lastUpdated,
      audit: { interaction: "delete", what: `${type}/${id}/_history/${versionId}`, outcome: "0" },
    };
  }

  /** The deletion of `current` under If-Match; undefined when there is nothing to delete (absent, or deleted already). */
  async planDeletion(type: string, current: StoredVersion | undefined, ifMatch: string | undefined): Promise<PlannedWrite | undefined> {
    deletable(type);
    checkIfMatch(ifMatch, current);
    if (!current || current.deleted) return undefined;
    return underIfMatch(await this.planDelete(type, current.id, current), ifMatch);
  }

  /** A conditional create's match, answered instead of a new resource: judged as the create it stands for. */
  async existing(match: StoredVersion): Promise<WriteResult> {
    const resource = await this.repository.hydrate(match.content);
    await this.access.mayWrite("create", resource);
    return { resource: await this.access.shown(resource), outcome: "existing" };
  }
}
