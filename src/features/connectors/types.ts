// Connector types: what each one connects to, which auth kinds it accepts and
// which credentials each kind needs. Later issues append types (HL7 MLLP, DICOMweb...).
import { z } from "@hono/zod-openapi";

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

const HTTP = ["http", "https"];

export const CONNECTOR_TYPES: ConnectorTypeInfo[] = [
  {
    type: "fhir",
    name: "FHIR server (EHR)",
    description: "A FHIR R4 API of an EHR or another FHIR server; used by the EHR fetch node and HTTP tools",
    auth_kinds: ["oauth2_client_credentials", "bearer", "none"],
    schemes: HTTP,
    test_path: "metadata",
  },
  {
    type: "http",
    name: "HTTP / webhook",
    description: "Any HTTP endpoint; used by the HTTP request node and HTTP tools",
    auth_kinds: ["none", "bearer", "basic", "header"],
    schemes: HTTP,
    test_path: "",
  },
  {
    type: "openai_compatible",
    name: "OpenAI-compatible model endpoint",
    description:
      "A language model API speaking the OpenAI chat.completions protocol (llama.cpp, Ollama, vLLM or a hosted service); its models become available to the organization's agents and ai nodes",
    auth_kinds: ["bearer", "none"],
    schemes: HTTP,
    test_path: "models",
  },
  {
    type: "mllp",
    name: "HL7 v2 MLLP endpoint",
    description:
      "An HL7 v2 interface engine or EHR listening for MLLP at mllp://host:port (mllps:// for TLS); used by the HL7 send node. The connection test opens a TCP (or TLS) connection",
    auth_kinds: ["none"],
    schemes: ["mllp", "mllps"],
    test_path: "",
  },
];

export function connectorType(type: string): ConnectorTypeInfo | undefined {
  return CONNECTOR_TYPES.find((t) => t.type === type);
}

/** Problems with a type/endpoint/auth/credentials combination, as field errors. */
export function connectorConfigErrors(type: string, endpoint: string, auth: ConnectorAuth, credentials: Record<string, string>) {
  const errors: { path: string; message: string }[] = [];
  const info = connectorType(type);
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
