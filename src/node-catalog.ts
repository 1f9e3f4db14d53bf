// Every node family the pipeline catalog offers (part of the composition root): the
// pipelines' core families, the agents' ai nodes and each standard's nodes. A new family
// (DICOM, X12, devices, consent) is one list added here; the registry reads this.
import { AI_NODES } from "./features/agents/nodes";
import type { NodeType } from "./features/pipelines/node-type";
import { CORE_NODE_FAMILIES } from "./features/pipelines/nodes";
import { HL7_NODES } from "./standards/hl7v2/nodes";
import { IHE_NODES } from "./standards/ihe/pdqm/nodes";
import { IPS_NODES } from "./standards/ips/nodes";

export const NODE_FAMILIES: readonly (readonly NodeType<unknown>[])[] = [...CORE_NODE_FAMILIES, AI_NODES, HL7_NODES, IPS_NODES, IHE_NODES];
