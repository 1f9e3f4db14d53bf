// Every connector type this deployment offers (part of the composition root): the core
// HTTP types and each standard's own (HL7 v2 MLLP). A new one (DICOMweb) is listed here;
// the connectors feature does not change.
import { CORE_CONNECTOR_TYPES } from "../features/connectors/core-types";
import type { ConnectorType } from "../features/connectors/types";
import { DICOMWEB_CONNECTOR_TYPE } from "../standards/dicomweb/connector";
import { MLLP_CONNECTOR_TYPE } from "../standards/hl7v2/mllp-connector";

export const CONNECTOR_TYPE_CATALOG: readonly ConnectorType[] = [...CORE_CONNECTOR_TYPES, MLLP_CONNECTOR_TYPE, DICOMWEB_CONNECTOR_TYPE];
