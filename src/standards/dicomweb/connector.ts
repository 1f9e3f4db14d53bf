// The dicomweb connector type: a PACS or VNA's DICOMweb root (QIDO-RS, WADO-RS, STOW-RS),
// called over HTTP by the connector client, which adds its auth (none, basic, bearer or
// OAuth2 client credentials; credentials encrypted like every connector's) and goes through
// the outbound guard. The connection test is a one-study QIDO query.
import type { ConnectorType } from "../../features/connectors";

export const DICOMWEB_CONNECTOR_TYPE: ConnectorType = {
  type: "dicomweb",
  name: "DICOMweb server (PACS/VNA)",
  description:
    "A PACS, VNA or imaging archive's DICOMweb root (e.g. https://pacs.example.org/dicom-web); used by the DICOM query, retrieve, store and ImagingStudy link nodes. The connection test runs QIDO-RS studies?limit=1",
  auth_kinds: ["none", "basic", "bearer", "oauth2_client_credentials"],
  schemes: ["http", "https"],
  test_path: "studies?limit=1",
};
