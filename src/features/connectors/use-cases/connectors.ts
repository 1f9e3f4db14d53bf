// Connector management: CRUD with the configuration checked (type, endpoint, auth and
// the outbound policy), credentials kept on update when omitted, cached tokens dropped
// on every change, and a connection test.
import type { z } from "@hono/zod-openapi";
import type { OrgContext } from "../../../platform/org-context";
import { notFound, validationFailed } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { connectorClient, forgetConnectorTokens } from "../client";
import { assertConnectorDestinations } from "../destinations";
import type { ConnectorBody } from "../schemas";
import { type ConnectorInput, ConnectorStore } from "../store";
import type { ConnectorRow } from "../tables";
import { type ConnectorAuth, type ConnectorTypeInfo, connectorConfigErrors, inferAuthKind } from "../types";

type Body = z.infer<typeof ConnectorBody>;

const missing = (id: string) => notFound(`Connector ${id} not found`, "CONNECTOR_NOT_FOUND");

/** Validates the body; on update, omitted credentials (and auth) mean the stored ones, which must still fit. */
function checked(ctx: OrgContext, body: Body, stored?: { auth: ConnectorAuth; credentials: Record<string, string> }): ConnectorInput {
  const credentials = body.credentials ?? stored?.credentials ?? {};
  const auth = body.auth ?? (body.credentials || !stored ? { kind: inferAuthKind(credentials) } : stored.auth);
  const errors = connectorConfigErrors(ctx.connectorTypes, body.type, body.endpoint, auth, credentials);
  if (errors.length) throw validationFailed("Invalid connector", errors);
  assertConnectorDestinations(ctx.connectorTypes, { type: body.type, endpoint: body.endpoint, auth }, outboundPolicyOf(ctx.env));
  return { name: body.name, type: body.type, endpoint: body.endpoint, auth, credentials: body.credentials };
}

export const connectorTypes = (ctx: OrgContext): ConnectorTypeInfo[] => ctx.connectorTypes.infos;

export function listConnectors(ctx: OrgContext, limit: number, offset: number): Promise<{ rows: ConnectorRow[]; total: number }> {
  const { db, env, orgId } = ctx;
  return new ConnectorStore(db, env).list(orgId, limit, offset);
}

export function createConnector(ctx: OrgContext, body: Body): Promise<ConnectorRow> {
  const { db, env, orgId } = ctx;
  return new ConnectorStore(db, env).create(orgId, checked(ctx, body));
}

export async function getConnector(ctx: OrgContext, id: string): Promise<ConnectorRow> {
  const { db, env, orgId } = ctx;
  const row = await new ConnectorStore(db, env).get(orgId, id);
  if (!row) throw missing(id);
  return row;
}

export async function updateConnector(ctx: OrgContext, id: string, body: Body): Promise<ConnectorRow> {
  const { db, env, orgId } = ctx;
  const store = new ConnectorStore(db, env);
  const current = await store.resolve(orgId, id);
  if (!current) throw missing(id);
  const row = await store.update(orgId, id, checked(ctx, body, { auth: current.row.auth as ConnectorAuth, credentials: current.credentials }));
  if (!row) throw missing(id);
  forgetConnectorTokens(orgId, id);
  return row;
}

export async function deleteConnector(ctx: OrgContext, id: string): Promise<void> {
  const { db, env, orgId } = ctx;
  if (!(await new ConnectorStore(db, env).delete(orgId, id))) throw missing(id);
  forgetConnectorTokens(orgId, id);
}

/** FHIR: GET metadata; HTTP: GET the endpoint. */
export function testConnector(ctx: OrgContext, id: string) {
  return connectorClient(ctx, false).test(id);
}
