// The FHIR AuditEvent recorded when an agent acts (a tool call), naming the agent
// and the key it acted for, so a reviewer can tell what the agent touched.
import type { Resource } from "../fhir";

export interface AgentAuditEvent {
  agentId: string;
  agentName: string;
  keyId: string;
  tool: string;
  /** What the tool touched, e.g. "Patient/123" or "Observation?patient=123". */
  entity?: string;
  outcome: "success" | "failure";
  detail?: string;
  recorded?: string;
}

export function auditEventResource(e: AgentAuditEvent): Resource {
  return {
    resourceType: "AuditEvent",
    type: { system: "http://dicom.nema.org/resources/ontology/DCM", code: "110112", display: "Query" },
    subtype: [{ system: "urn:cdis:agent-tool", code: e.tool }],
    action: "E",
    recorded: e.recorded ?? new Date().toISOString(),
    // 0 success, 4 minor failure (http://hl7.org/fhir/audit-event-outcome).
    outcome: e.outcome === "success" ? "0" : "4",
    ...(e.detail ? { outcomeDesc: e.detail.slice(0, 500) } : {}),
    agent: [
      {
        type: { coding: [{ system: "urn:cdis:agent", code: "llm-agent" }] },
        who: { identifier: { system: "urn:cdis:agent", value: e.agentId }, display: e.agentName },
        requestor: false,
      },
      {
        who: { identifier: { system: "urn:cdis:api-key", value: e.keyId } },
        requestor: true,
      },
    ],
    source: { observer: { display: "clinical-data-integration agents" } },
    ...(e.entity ? { entity: [{ what: { display: e.entity } }] } : {}),
  };
}
