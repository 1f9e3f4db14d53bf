// Connector management: CRUD with the configuration checked (type, endpoint, auth and
// the outbound policy), credentials kept on update when omitted, cached tokens dropped
// on every change, and a connection test.
import type { z } from "@hono/zod-openapi";
import type { OrgData } from "../../../platform/org-data";
import type { Env } from "../../../platform/env";
import { notFound, validationFailed } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { connectorClient, forgetConnectorTokens } from "../client";
import { assertConnectorDestinations } from "../destinations";
import type { ConnectorBody } from "../schemas";
import { type ConnectorInput, ConnectorStore } from "../store";
import type { ConnectorRow } from "../tables";
import { CONNECTOR_TYPES, type ConnectorAuth, connectorConfigErrors, inferAuthKind } from "../types";

type Body = z.infer<typeof ConnectorBody>;

const missing = (id: string) => notFound(`Connector ${id} not found`, "CONNECTOR_NOT_FOUND");

/** Validates the body; on update, omitted credentials (and auth) mean the stored ones, which must still fit. */
function checked(env: Env, body: Body, stored?: { auth: ConnectorAuth; credentials: Record<string, string> }): ConnectorInput {
  const credentials = body.credentials ?? stored?.credentials ?? {};
  const auth = body.auth ?? (body.credentials || !stored ? { kind: inferAuthKind(credentials) } : stored.auth);
  const errors = connectorConfigErrors(body.type, body.endpoint, auth, credentials);
  if (errors.length) throw validationFailed("Invalid connector", errors);
  assertConnectorDestinations({ type: body.type, endpoint: body.endpoint, auth }, outboundPolicyOf(env));
  return { name: body.name, type: body.type, endpoint: body.endpoint, auth, credentials: body.credentials };
}

export const connectorTypes = () => CONNECTOR_TYPES;

export function listConnectors(data: OrgData, orgId: string, limit: number, offset: number): Promise<{ rows: ConnectorRow[]; total: number }> {
  const { db, env } = data;
  return new ConnectorStore(db, env).list(orgId, limit, offset);
}

export function createConnector(data: OrgData, orgId: string, body: Body): Promise<ConnectorRow> {
  const { db, env } = data;
  return new ConnectorStore(db, env).create(orgId, checked(env, body));
}

export async function getConnector(data: OrgData, orgId: string, id: string): Promise<ConnectorRow> {
  const { db, env } = data;
  const row = await new ConnectorStore(db, env).get(orgId, id);
  if (!row) throw missing(id);
  return row;
}

export async function updateConnector(data: OrgData, orgId: string, id: string, body: Body): Promise<ConnectorRow> {
  const { db, env } = data;
  const store = new ConnectorStore(db, env);
  const current = await store.resolve(orgId, id);
  if (!current) throw missing(id);
  const row = await store.update(orgId, id, checked(env, body, { auth: current.row.auth as ConnectorAuth, credentials: current.credentials }));
  if (!row) throw missing(id);
  forgetConnectorTokens(orgId, id);
  return row;
}

export async function deleteConnector(data: OrgData, orgId: string, id: string): Promise<void> {
  const { db, env } = data;
  if (!(await new ConnectorStore(db, env).delete(orgId, id))) throw missing(id);
  forgetConnectorTokens(orgId, id);
}

/** FHIR: GET metadata; HTTP: GET the endpoint. */
export function testConnector(data: OrgData, orgId: string, id: string) {
  return connectorClient(data, orgId, false).test(id);
}
