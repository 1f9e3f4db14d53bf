// The store's use of its access policy (access-policy.ts, the hook): a read denied looks like an
// absent resource (404), a write or a search of a type refused outright is a 403 naming its reason,
// and results are thinned to what the principal may see, and shown without the fields it hides. A
// policy that permits everything costs no check and no parse.
import { forbidden, notFound } from "../../platform/errors";
import type { Principal } from "../tenancy";
import type { AccessAction, AccessPolicy, SearchParamUse, SearchScope } from "./access-policy";
import type { Resource } from "./port";

export class AccessChecks {
  constructor(
    readonly policy: AccessPolicy,
    private readonly principal: Principal,
  ) {}

  /** True when the policy never denies: the store then skips checks and filters. */
  get permitsAll(): boolean {
    return this.policy.permitsAll === true;
  }

  /** A read the policy denies looks like an absent resource (404), as another organization's does. */
  async mayRead(resource: Resource): Promise<void> {
    if (this.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action: "read", resourceType: resource.resourceType, resource });
    if (!decision.permit) throw notFound(`${resource.resourceType}/${resource.id} not found`);
  }

  /** A patient's whole record ($everything), judged on the Patient (its stored JSON) and the patient it is about. */
  async mayReadRecord(patientId: string, content: string): Promise<void> {
    if (this.permitsAll) return;
    const resource = JSON.parse(content) as Resource;
    const decision = await this.policy.check({ principal: this.principal, action: "read", resourceType: "Patient", resource, patient: patientId });
    if (!decision.permit) throw notFound(`Patient/${patientId} not found`);
  }

  /** A write the policy denies is a 403 naming its reason. */
  async mayWrite(action: "create" | "update" | "delete", resource: Resource): Promise<void> {
    if (this.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action, resourceType: resource.resourceType, resource });
    if (!decision.permit) throw forbidden(`${action} of ${resource.resourceType}/${resource.id ?? "(new)"} denied: ${decision.reason}`);
  }

  /** A search of a type the policy refuses outright (no scope names it) is a 403 naming its reason, before it runs. */
  async maySearch(resourceType: string, searchParams?: readonly SearchParamUse[]): Promise<void> {
    if (this.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action: "search", resourceType, ...(searchParams ? { searchParams } : {}) });
    if (!decision.permit) throw forbidden(`search of ${resourceType} denied: ${decision.reason}`);
  }

  /** The conditions a search of `types` must meet in its query (none: it runs as asked). */
  async searchScopes(types: readonly string[]): Promise<readonly SearchScope[]> {
    if (this.permitsAll || !this.policy.searchScope) return [];
    return (await this.policy.searchScope(this.principal, types)) ?? [];
  }

  /** What the principal is shown of a resource it may see (the fields the policy hides removed). */
  async shown<R extends Resource>(resource: R): Promise<R> {
    if (this.permitsAll || !this.policy.redact) return resource;
    return (await this.policy.redact(this.principal, resource)) as R;
  }

  async shownAll<R extends Resource>(resources: R[]): Promise<R[]> {
    if (this.permitsAll || !this.policy.redact) return resources;
    return Promise.all(resources.map((r) => this.shown(r)));
  }

  /** Whether results need reshaping before they are shown (a policy that may hide fields). */
  get redacts(): boolean {
    return !this.permitsAll && this.policy.redact !== undefined;
  }

  /** The version a write stores: what the principal may not see or change kept from `current` (none: a create). */
  async restored<R extends Resource>(written: R, current: Resource | undefined): Promise<R> {
    if (this.permitsAll || !this.policy.restore) return written;
    return (await this.policy.restore(this.principal, written, current)) as R;
  }

  /** The results of `action` the policy lets the principal see. */
  visible<T>(action: AccessAction, items: T[], resourceOf: (item: T) => Resource): T[] | Promise<T[]> {
    return this.permitsAll ? items : this.policy.filter(this.principal, action, items, resourceOf);
  }

  /** What a search shows of its results, when the policy may hide some (undefined: everything). */
  searchFilter(): ((resources: Resource[]) => Resource[] | Promise<Resource[]>) | undefined {
    return this.permitsAll ? undefined : (resources) => this.visible("search", resources, (r) => r);
  }

  /** How a search shows the results it keeps, when the policy may hide fields (undefined: as stored). */
  searchRedaction(): ((resources: Resource[]) => Promise<Resource[]>) | undefined {
    return this.redacts ? (resources) => this.shownAll(resources) : undefined;
  }
}
