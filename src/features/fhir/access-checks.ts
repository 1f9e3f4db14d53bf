// The store's use of its access policy (access-policy.ts, the hook): a read denied looks like an
// absent resource (404), a write or a search of a type refused outright is a 403 naming its reason,
// and results are thinned to what the principal may see. A policy that permits everything costs no check and no parse.
import { forbidden, notFound } from "../../platform/errors";
import type { Principal } from "../tenancy";
import type { AccessAction, AccessPolicy } from "./access-policy";
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
  async maySearch(resourceType: string): Promise<void> {
    if (this.permitsAll) return;
    const decision = await this.policy.check({ principal: this.principal, action: "search", resourceType });
    if (!decision.permit) throw forbidden(`search of ${resourceType} denied: ${decision.reason}`);
  }

  /** The results of `action` the policy lets the principal see. */
  visible<T>(action: AccessAction, items: T[], resourceOf: (item: T) => Resource): T[] | Promise<T[]> {
    return this.permitsAll ? items : this.policy.filter(this.principal, action, items, resourceOf);
  }

  /** What a search shows of its results, when the policy may hide some (undefined: everything). */
  searchFilter(): ((resources: Resource[]) => Resource[] | Promise<Resource[]>) | undefined {
    return this.permitsAll ? undefined : (resources) => this.visible("search", resources, (r) => r);
  }
}
