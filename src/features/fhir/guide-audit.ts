// The hook implementation guides use to record their own AuditEvent for a FHIR interaction that
// is one of their transactions (IHE MHD ITI-65/66/67/68, PDQm ITI-78/119: the IHE audit profiles),
// beside the store's own REST AuditEvent. The composition root lists the guides' audits;
// routes/fhir.ts reports each search, transaction, raw Binary read and operation to them, success or failure.
// The events go through the store's audit path (the audit queue), under the caller's organization.
import type { Principal } from "../tenancy";
import type { AuditInput } from "./audit";
import type { Bundle, Resource } from "./port";
import type { FhirService } from "./service";

export type GuideInteraction =
  | { kind: "search"; type: string | undefined; params: URLSearchParams }
  | { kind: "transaction"; bundle: Bundle }
  | { kind: "binary-retrieve"; id: string }
  /** A FHIR operation: its name (without $), the type and id it ran on, the query and the POST body. */
  | { kind: "operation"; name: string; type?: string; id?: string; params: URLSearchParams; body?: unknown };

export type AuditedInteraction = GuideInteraction & {
  outcome: AuditInput["outcome"];
  outcomeDesc?: string;
  /** The answer's body: a searchset, transaction-response or OperationOutcome; the Binary retrieved. */
  response?: Resource;
  principal: Principal;
  /** The FHIR base the request addressed (the server's network identity). */
  baseUrl: string;
  /** The client's IP address, when the platform reports it (CF-Connecting-IP). */
  clientAddress?: string;
};

export interface GuideAudit {
  /** The guide's AuditEvent for this interaction, or undefined when it is none of the guide's transactions. */
  eventFor(interaction: AuditedInteraction, store: FhirService): Promise<Resource | undefined>;
}

/** Records every guide's AuditEvent for `interaction` through the store's audit path. */
export async function recordGuideAudits(audits: readonly GuideAudit[], interaction: AuditedInteraction, store: FhirService): Promise<void> {
  for (const audit of audits) {
    const event = await audit.eventFor(interaction, store);
    if (event) await store.writeAuditEvent(event);
  }
}
