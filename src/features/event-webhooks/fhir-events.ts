// FHIR changes as the service's events: `fhir.<ResourceType>.created|updated|deleted`. The FHIR
// store's after-commit hook (wired by the composition root) maps each committed change with this
// and hands the events to the org context's `publish`.
import type { PublishedEvent } from "../../platform/events";
import type { FhirAction } from "./catalog";

export interface FhirChange {
  action: "create" | "update" | "delete";
  resourceType: string;
  id: string;
  versionId: string;
}

const PAST: Record<FhirChange["action"], FhirAction> = { create: "created", update: "updated", delete: "deleted" };

/** `at`: when the change committed (ISO 8601; now by default). The id is stable per version, so a hook run twice raises it once. */
export function fhirChangeEvent(change: FhirChange, at = new Date().toISOString()): PublishedEvent {
  return {
    type: `fhir.${change.resourceType}.${PAST[change.action]}`,
    id: `fhir.${change.resourceType}.${change.id}.${change.versionId}.${PAST[change.action]}`,
    occurred_at: at,
    data: { resource_type: change.resourceType, id: change.id, version_id: change.versionId, reference: `${change.resourceType}/${change.id}` },
  };
}
