// Every node family the pipeline catalog offers (part of the composition root): the
// pipelines' core families, the agents' ai nodes and each standard's nodes. A new family
// (DICOM, X12, devices, consent) is one list added here; the registry reads this.
import { AI_NODES } from "../features/agents/nodes/index";
import { ALERT_NODES } from "../features/alerts/nodes";
import { CONSENT_NODES } from "../features/consent/nodes/index";
import type { NodeType } from "../features/pipelines/node-type";
import { CORE_NODE_FAMILIES } from "../features/pipelines/nodes/index";
import { DICOM_NODES } from "../standards/dicomweb/nodes/index";
import { DEVICE_NODES } from "../features/devices/nodes";
import { HL7_NODES } from "../standards/hl7v2/nodes";
import { X12_NODES } from "../standards/x12/nodes/index";
import { MHD_NODES } from "../standards/ihe/mhd/nodes";
import { IHE_NODES } from "../standards/ihe/pdqm/nodes";
import { IPS_NODES } from "../standards/ips/nodes";

export const NODE_FAMILIES: readonly (readonly NodeType<unknown>[])[] = [...CORE_NODE_FAMILIES, AI_NODES, HL7_NODES, X12_NODES, DICOM_NODES, IPS_NODES, IHE_NODES, MHD_NODES, DEVICE_NODES, ALERT_NODES, CONSENT_NODES];
