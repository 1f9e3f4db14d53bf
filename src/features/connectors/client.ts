// Outbound calls through a connector: resolves its endpoint, adds its auth
// (fetching and caching OAuth2 client-credentials tokens), and the connection test.
// Every call, token requests included, goes through the outbound guard.
import type { OrgContext } from "../../platform/org-context";
import { ApiError, notFound } from "../../platform/errors";
import { type TokenCache, clientCredentialsToken } from "../../platform/outbound/client-credentials";
import { type GuardedFetch, guardedFetch } from "../../platform/outbound/fetch";
import { outboundPolicyOf } from "../../platform/outbound/policy";
import { type ResolvedConnector, ConnectorStore } from "./store";
import type { ConnectorConnection, ExchangeOptions } from "./types";

/** How long the connection test of a type with its own transport (MLLP) waits for the connection. */
const PROBE_TIMEOUT_MS = 5_000;

export interface ConnectionTestResult {
  ok: boolean;
  status?: number;
  latency_ms: number;
  message: string;
}

/** A connector call: `query` is added to whatever query string the path already has. */
export interface ConnectorRequestInit extends RequestInit {
  query?: QueryParams;
}

export type QueryParams = URLSearchParams | Record<string, string> | [string, string][];

export interface ConnectorClient {
  /** Calls `path` (relative to the endpoint, or absolute under it) with the connector's auth. */
  fetch(connectorId: string, path: string, init?: ConnectorRequestInit): Promise<Response>;
  /** Sends one message over the transport of the connector's type and answers the reply (mllp: an HL7 v2 message and its ACK). */
  exchange(connectorId: string, message: string, opts: Omit<ExchangeOptions, "policy">): Promise<string>;
  /**
   * A connection to the connector's endpoint kept open across exchanges, for a caller that sends
   * many (a destination's drain), with the endpoint it goes to; null when the type keeps none
   * (HTTP types, or a transport without connections).
   */
  connect(connectorId: string): Promise<{ endpoint: string; connection: ConnectorConnection } | null>;
  test(connectorId: string): Promise<ConnectionTestResult>;
  endpoint(connectorId: string): Promise<string>;
  /** The connector's type (mllp, fhir, http...). */
  type(connectorId: string): Promise<string>;
  /**
   * The named credentials of the connector, and only those (tenant code's `ctx.secrets`); a name it
   * does not hold is 400 CONNECTOR_SECRET_NOT_FOUND, a connector not of this org 404 CONNECTOR_NOT_FOUND.
   */
  secrets(connectorId: string, names: readonly string[]): Promise<Record<string, string>>;
}

const tokenCache: TokenCache = new Map();

/** Forgets cached tokens of a connector (after its credentials change). */
export function forgetConnectorTokens(orgId: string, connectorId: string): void {
  tokenCache.delete(`${orgId}:${connectorId}`);
}

/**
 * The URL of `path` under the endpoint, with `query` appended to the path's own query string
 * (URL and URLSearchParams do the joining and encoding, so a path with `?` gets no second one).
 */
export function resolveUrl(endpoint: string, path: string, query?: QueryParams): string {
  const base = endpoint.endsWith("/") ? endpoint : `${endpoint}/`;
  const url = new URL(path.replace(/^\//, ""), base);
  if (!url.href.startsWith(base) && url.href !== endpoint) {
    throw new ApiError(400, "CONNECTOR_URL_OUTSIDE_ENDPOINT", `URL ${url.href} is outside the connector endpoint ${endpoint}`);
  }
  for (const [k, v] of new URLSearchParams(query)) url.searchParams.append(k, v);
  return url.href;
}

async function tokenUrl(c: ResolvedConnector, fetch: GuardedFetch): Promise<string> {
  if (c.row.auth.token_url) return c.row.auth.token_url;
  const res = await fetch(resolveUrl(c.row.endpoint, ".well-known/smart-configuration"), { headers: { accept: "application/json" } });
  const body = res.ok ? ((await res.json()) as { token_endpoint?: string }) : {};
  if (!body.token_endpoint) throw new ApiError(502, "CONNECTOR_AUTH_FAILED", "No token_url set and no SMART configuration found");
  return body.token_endpoint;
}

const oauthToken = (c: ResolvedConnector, fetch: GuardedFetch): Promise<string> =>
  clientCredentialsToken(
    fetch,
    { tokenUrl: () => tokenUrl(c, fetch), clientId: c.credentials.client_id ?? "", clientSecret: c.credentials.client_secret ?? "", scope: c.row.auth.scope },
    tokenCache,
    `${c.row.orgId}:${c.row.id}`,
    (message) => new ApiError(502, "CONNECTOR_AUTH_FAILED", message),
  );

async function authHeaders(c: ResolvedConnector, fetch: GuardedFetch): Promise<Record<string, string>> {
  const creds = c.credentials;
  switch (c.row.auth.kind) {
    case "bearer":
      return { authorization: `Bearer ${creds.token}` };
    case "basic":
      return { authorization: `Basic ${btoa(`${creds.username}:${creds.password}`)}` };
    case "header":
      return { [c.row.auth.header_name as string]: creds.value ?? "" };
    case "oauth2_client_credentials":
      return { authorization: `Bearer ${await oauthToken(c, fetch)}` };
    default:
      return {};
  }
}

const testModeBlocks = (what: string) => new ApiError(409, "TEST_MODE_WRITE_BLOCKED", `Test mode blocks ${what} to external systems`);

export function connectorClient(ctx: OrgContext, testMode: boolean): ConnectorClient {
  const { env, orgId, connectorTypes } = ctx;
  const store = new ConnectorStore(ctx.db, env);
  const policy = outboundPolicyOf(env);
  // A connector's custom auth header is a credential too: dropped on a cross-origin redirect.
  // A stream body (a DICOM STOW) is sent as a stream, not buffered: a study can outgrow a Worker's memory.
  const http = (c: ResolvedConnector, streamBodies = false) => guardedFetch({ policy, credentialHeaders: c.row.auth.header_name ? [c.row.auth.header_name] : [], streamBodies });
  // Read once per client (one execution, one delivery attempt): a node or a delivery that asks for
  // the type, then calls, reads the row and unseals its credentials once.
  const resolved = new Map<string, Promise<ResolvedConnector>>();
  const resolve = (id: string): Promise<ResolvedConnector> => {
    let c = resolved.get(id);
    if (!c) {
      c = store.resolve(orgId, id).then((row) => {
        if (!row) throw notFound(`Connector ${id} not found`, "CONNECTOR_NOT_FOUND");
        return row;
      });
      // A miss is not remembered: a connector created meanwhile is found by the next call.
      c.catch(() => resolved.delete(id));
      resolved.set(id, c);
    }
    return c;
  };
  const call = async (c: ResolvedConnector, path: string, { query, ...init }: ConnectorRequestInit = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    if (testMode && method !== "GET" && method !== "HEAD") throw testModeBlocks(`${method} calls`);
    const fetch = http(c, init.body instanceof ReadableStream);
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(await authHeaders(c, fetch))) headers.set(k, v);
    return fetch(resolveUrl(c.row.endpoint, path, query), { ...init, headers });
  };
  return {
    fetch: async (id, path, init) => call(await resolve(id), path, init),
    exchange: async (id, message, opts) => {
      const { row } = await resolve(id);
      const transport = connectorTypes.get(row.type)?.transport;
      if (!transport) throw new ApiError(400, "CONNECTOR_TYPE_MISMATCH", `Connector ${id} is a ${row.type} connector, which exchanges no messages of its own`);
      // A malformed endpoint fails in test mode too.
      transport.address(row.endpoint);
      if (testMode) throw testModeBlocks("message sends");
      return transport.exchange(row.endpoint, message, { ...opts, policy });
    },
    connect: async (id) => {
      const { row } = await resolve(id);
      const transport = connectorTypes.get(row.type)?.transport;
      if (!transport?.connect) return null;
      if (testMode) throw testModeBlocks("message sends");
      return { endpoint: row.endpoint, connection: transport.connect(row.endpoint, policy) };
    },
    endpoint: async (id) => (await resolve(id)).row.endpoint,
    type: async (id) => (await resolve(id)).row.type,
    secrets: async (id, names) => {
      const { credentials } = await resolve(id);
      const missing = names.filter((n) => !Object.hasOwn(credentials, n));
      if (missing.length) throw new ApiError(400, "CONNECTOR_SECRET_NOT_FOUND", `Connector ${id} holds no ${missing.join(", ")}`);
      return Object.fromEntries(names.map((n) => [n, credentials[n] as string]));
    },
    test: async (id) => {
      const c = await resolve(id);
      const started = Date.now();
      try {
        const info = connectorTypes.get(c.row.type);
        if (info?.transport) {
          await info.transport.probe(c.row.endpoint, PROBE_TIMEOUT_MS, policy);
          return { ok: true, latency_ms: Date.now() - started, message: "TCP connection succeeded" };
        }
        const res = await call(c, info?.test_path ?? "", { headers: { accept: "application/fhir+json, application/json" } });
        return {
          ok: res.ok,
          status: res.status,
          latency_ms: Date.now() - started,
          message: res.ok ? "Connection succeeded" : `Endpoint answered HTTP ${res.status}`,
        };
      } catch (e) {
        return { ok: false, latency_ms: Date.now() - started, message: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}
