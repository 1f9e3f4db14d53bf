// DICOMweb, declared once: its pipeline nodes and the dicomweb connector type.
import type { Plugin } from "../plugin";
import { DICOMWEB_CONNECTOR_TYPE } from "./connector";
import { DICOM_NODES } from "./nodes/index";

export const DICOMWEB_PLUGIN = { name: "dicomweb", nodes: DICOM_NODES, connectorTypes: [DICOMWEB_CONNECTOR_TYPE] } as const satisfies Plugin;
