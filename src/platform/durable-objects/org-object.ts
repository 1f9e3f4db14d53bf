// A Durable Object whose work runs in its organization's context. The feature that owns it
// exports it abstract; the Worker entry (src/main/entry.ts) exports the bound subclass, which
// says how contexts are built, so no Durable Object imports the composition root.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { OrgContext, OrgContextsOf } from "../org-context";

export abstract class OrgObject extends DurableObject<Env> {
  /** How this deployment builds an org's context (src/main/context.ts's orgContexts). */
  protected abstract readonly contexts: OrgContextsOf;

  /** The org's context from the directory (404 when the org is gone). */
  protected orgContext(orgId: string): Promise<OrgContext> {
    return this.contexts(this.env).forOrg(orgId);
  }
}
