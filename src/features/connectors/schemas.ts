// The connectors API's zod schemas (validation and OpenAPI) and how stored rows are
// presented in responses: credentials only masked, never the secrets.
import { z } from "@hono/zod-openapi";
import { jsonAtMost } from "../../platform/http/schemas";
import type { ConnectorRow } from "./tables";
import { AuthSchema, type ConnectorTypeInfo } from "./types";

export const Connector = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    type: z.string(),
    endpoint: z.string(),
    auth: z.record(z.string(), z.string()),
    credentials: z.record(z.string(), z.string()).openapi({
      description: "Each field masked, never the value: \"****\" and the value's last four characters when it has 16 or more, else \"****\"",
      example: { client_id: "****", client_secret: "****9876" },
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Connector");

/** Tokens, keys and certificates: ample room, kept (encrypted) in the connector's row. */
const MAX_CREDENTIALS_BYTES = 64 * 1024;

export const ConnectorBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: z.string().max(100),
    endpoint: z.url().max(2048).openapi({ description: "https://… for HTTP-based types, mllp://host:port or mllps://host:port for mllp" }),
    auth: AuthSchema.optional().openapi({ description: "Default: inferred from the credentials (client_id → oauth2_client_credentials, token → bearer)" }),
    credentials: z
      .record(z.string().max(200), z.string().max(8192))
      .superRefine(jsonAtMost(MAX_CREDENTIALS_BYTES))
      .optional()
      .openapi({ description: `Omit on update to keep the stored credentials; at most ${MAX_CREDENTIALS_BYTES} bytes of JSON` }),
  })
  .strict()
  .openapi("ConnectorInput");

export const TestResult = z.object({ ok: z.boolean(), status: z.number().int().optional(), latency_ms: z.number().int(), message: z.string() }).openapi("ConnectionTestResult");

export const ConnectorTypesSchema = z.object({ types: z.array(z.object({ type: z.string(), name: z.string(), description: z.string(), auth_kinds: z.array(z.string()), schemes: z.array(z.string()) })) });

export const ConnectorIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const presentConnector = (r: ConnectorRow): z.infer<typeof Connector> => ({
  id: r.id,
  name: r.name,
  type: r.type,
  endpoint: r.endpoint,
  auth: r.auth,
  credentials: r.credentialsMasked,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

/** The supported types without their internal test paths. */
export const presentConnectorTypes = (types: ConnectorTypeInfo[]) => ({ types: types.map(({ test_path: _, ...t }) => t) });
