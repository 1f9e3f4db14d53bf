// The International Patient Summary, declared once: the ips.summary node, the $summary
// operation, the IPS server actor the CapabilityStatement declares and $summary's AuditEvent.
import type { Plugin } from "../plugin";
import { IPS_ACTORS } from "./actors";
import { ipsAudit } from "./audit";
import { IPS_NODES } from "./nodes";
import { IPS_OPERATIONS } from "./operation";

export const IPS_PLUGIN = {
  name: "ips",
  nodes: IPS_NODES,
  fhir: { operations: IPS_OPERATIONS, guideActors: IPS_ACTORS, guideAudits: [ipsAudit] },
} as const satisfies Plugin;
