// What other features use of connectors: calls through a connector (its auth added, the
// outbound guard applied), the destination check of a connector a tool names, and the org's
// configured connectors. (Connector types come from the org context's `connectorTypes`.)
export { type ConnectorClient, connectorClient } from "./client";
export { assertConnectorDestinations } from "./destinations";
export { ConnectorStore } from "./store";
export type { ConnectorAuth, ConnectorConnection, ConnectorType } from "./types";
export { listConnectors } from "./use-cases/connectors";
export { decryptCredentials, encryptCredentials, maskCredentials } from "./crypto";
