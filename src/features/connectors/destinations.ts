// Where a connector will call, checked against the outbound guard when it is saved
// (and when a tool naming it is saved), so a refused destination fails early with
// DESTINATION_NOT_ALLOWED. Every call checks again: OUTBOUND_ALLOW may have changed.
import type { FieldError } from "../../platform/errors";
import { checkHost, checkUrl, destinationNotAllowed, type OutboundPolicy, type Verdict } from "../../platform/outbound/policy";
import type { ConnectorAuth, ConnectorTypeRegistry } from "./types";

interface ConnectorTarget {
  type: string;
  endpoint: string;
  auth: ConnectorAuth;
}

/** An HTTP endpoint is a URL; a type with its own transport (mllp) says where its endpoint points. */
function endpointVerdict(types: ConnectorTypeRegistry, c: ConnectorTarget, policy: OutboundPolicy): Verdict {
  const transport = types.get(c.type)?.transport;
  if (!transport) return checkUrl(c.endpoint, policy);
  const { hostname, port } = transport.address(c.endpoint);
  return checkHost(hostname, port, policy);
}

/** The refused destinations of a connector (endpoint, OAuth token URL), as field errors under `prefix`. */
export function connectorDestinationErrors(types: ConnectorTypeRegistry, c: ConnectorTarget, policy: OutboundPolicy, prefix = ""): FieldError[] {
  const checks: [string, Verdict][] = [["endpoint", endpointVerdict(types, c, policy)]];
  if (c.auth.token_url) checks.push(["auth.token_url", checkUrl(c.auth.token_url, policy)]);
  return checks.flatMap(([path, v]) => (v.ok ? [] : [{ path: `${prefix}${path}`, message: v.reason }]));
}

/** Throws DESTINATION_NOT_ALLOWED (400) when the connector would call a refused destination. */
export function assertConnectorDestinations(types: ConnectorTypeRegistry, c: ConnectorTarget, policy: OutboundPolicy, prefix = ""): void {
  const errors = connectorDestinationErrors(types, c, policy, prefix);
  if (errors.length) throw destinationNotAllowed((errors[0] as FieldError).message, errors);
}
