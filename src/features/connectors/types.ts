// Connector types: what each one connects to, which auth kinds it accepts and
// which credentials each kind needs. The core HTTP types are in core-types.ts; a
// standard adds its own (HL7 MLLP; later DICOMweb...) with its transport, and the
// composition root lists them all (src/main/plugins.ts) and builds the
// isolate's one ConnectorTypeRegistry from the list (the org context's `connectorTypes`).
import { z } from "@hono/zod-openapi";
import type { OutboundPolicy } from "../../platform/outbound/policy";

export const AUTH_KINDS = ["none", "bearer", "oauth2_client_credentials", "basic", "header"] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

export const AuthSchema = z
  .object({
    kind: z.enum(AUTH_KINDS),
    token_url: z.url().max(2048).optional().openapi({ description: "OAuth2 token endpoint; discovered from SMART configuration when absent" }),
    scope: z.string().max(1000).optional(),
    header_name: z.string().regex(/^[A-Za-z0-9-]{1,64}$/).optional(),
  })
  .strict();
export type ConnectorAuth = z.infer<typeof AuthSchema>;

/** Credentials each auth kind needs. */
const REQUIRED_CREDENTIALS: Record<AuthKind, string[]> = {
  none: [],
  bearer: ["token"],
  oauth2_client_credentials: ["client_id", "client_secret"],
  basic: ["username", "password"],
  header: ["value"],
};

export interface ConnectorTypeInfo {
  type: string;
  name: string;
  description: string;
  auth_kinds: AuthKind[];
  /** URL schemes an endpoint of this type may use. */
  schemes: string[];
  /** Path probed by the connection test, relative to the endpoint (HTTP types). */
  test_path: string;
}

/** Options of one exchange over a connector type's own transport. */
export interface ExchangeOptions {
  timeoutMs: number;
  /** Which destinations are allowed (outboundPolicyOf(env)). */
  policy: OutboundPolicy;
  /** The execution's signal: a cancelled run stops waiting for the answer. */
  signal?: AbortSignal;
}

/**
 * The transport of a connector type whose endpoints are not HTTP URLs (MLLP), supplied by its
 * standard: where an endpoint points (for the outbound guard), the connection test, and one
 * request/answer exchange.
 */
export interface ConnectorTransport {
  /** Host and port of an endpoint; throws a 400 ApiError when the endpoint is malformed. */
  address(endpoint: string): { hostname: string; port: number };
  probe(endpoint: string, timeoutMs: number, policy: OutboundPolicy): Promise<void>;
  exchange(endpoint: string, message: string, opts: ExchangeOptions): Promise<string>;
  /**
   * A connection to the endpoint kept open across exchanges (a destination's deliveries), when
   * the type can reuse one (mllp); made without connecting (the first exchange connects).
   */
  connect?(endpoint: string, policy: OutboundPolicy): ConnectorConnection;
  /**
   * What an answer says of the message sent (mllp: the ACK's MSA-1 and reason), for the destination
   * queues to tell delivered from rejected; throws when the answer is unreadable.
   */
  readAnswer(answer: string): { code: string; reason: string };
}

/** A kept-open connection of a connector transport: exchanges run one after another on it, reconnecting after it breaks. */
export interface ConnectorConnection {
  /** One message and its answer, after the exchanges before it; throws as `exchange` does. */
  exchange(message: string, opts: Omit<ExchangeOptions, "policy">): Promise<string>;
  close(): void;
  /** Connections opened so far. */
  readonly opened: number;
}

/** A connector type as the composition root registers it (src/main/plugins.ts). */
export interface ConnectorType extends ConnectorTypeInfo {
  /** Absent for HTTP types, which the connector client calls with fetch. */
  transport?: ConnectorTransport;
}

/** The connector types a deployment offers, from the list the composition root passes in. */
export class ConnectorTypeRegistry {
  /** What the API lists about each type: its description, without behaviour. */
  readonly infos: ConnectorTypeInfo[];

  constructor(private readonly types: readonly ConnectorType[]) {
    this.infos = types.map(({ transport: _, ...info }) => info);
  }

  get(type: string): ConnectorType | undefined {
    return this.types.find((t) => t.type === type);
  }
}

/** Problems with a type/endpoint/auth/credentials combination, as field errors. */
export function connectorConfigErrors(types: ConnectorTypeRegistry, type: string, endpoint: string, auth: ConnectorAuth, credentials: Record<string, string>) {
  const errors: { path: string; message: string }[] = [];
  const info = types.get(type);
  if (!info) return [{ path: "type", message: `Unknown connector type ${type}; see /api/connectors/types` }];
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(endpoint)?.[1]?.toLowerCase();
  if (!scheme || !info.schemes.includes(scheme)) {
    errors.push({ path: "endpoint", message: `${type} endpoints are ${info.schemes.map((s) => `${s}://`).join(" or ")} URLs` });
  }
  if (!info.auth_kinds.includes(auth.kind)) {
    errors.push({ path: "auth.kind", message: `${type} connectors accept ${info.auth_kinds.join(", ")}` });
  }
  for (const field of REQUIRED_CREDENTIALS[auth.kind]) {
    if (!credentials[field]) errors.push({ path: `credentials.${field}`, message: `Required for ${auth.kind}` });
  }
  if (auth.kind === "header" && !auth.header_name) errors.push({ path: "auth.header_name", message: "Required for header auth" });
  return errors;
}

/** Infers the auth kind when a request gives only credentials (the spec's create body). */
export function inferAuthKind(credentials: Record<string, string>): AuthKind {
  if (credentials.client_id || credentials.client_secret) return "oauth2_client_credentials";
  if (credentials.token) return "bearer";
  if (credentials.username) return "basic";
  return "none";
}
