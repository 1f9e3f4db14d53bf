// The bridges API's zod schemas (validation and OpenAPI) and how a bridge is presented.
import { z } from "@hono/zod-openapi";
import type { BridgeStatus } from "./bridge-relay";
import type { BridgeRow } from "./tables";

export const Bridge = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    credential_prefix: z.string().openapi({ description: "The credential's first characters, to tell credentials apart" }),
    created_at: z.string(),
    credential_rotated_at: z.string().nullable(),
    status: z.enum(["online", "offline"]).openapi({ description: "online while the bridge's relay connection is open" }),
    connected_since: z.string().nullable().openapi({ description: "When the open connection was made" }),
    last_seen_at: z.string().nullable().openapi({ description: "The bridge's last message or keep-alive ping" }),
    version: z.string().nullable().openapi({ description: "The bridge's version, from its hello" }),
    host: z.string().nullable().openapi({ description: "The bridge's host name, from its hello" }),
  })
  .openapi("Bridge");

export const BridgeWithCredential = Bridge.extend({
  credential: z.string().openapi({ description: "The bridge's credential (BRIDGE_CREDENTIAL), shown only in this answer; stored as a hash" }),
}).openapi("BridgeWithCredential");

export const BridgeBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
  })
  .strict()
  .openapi("BridgeInput");

export const BridgeIdParam = z.object({ id: z.string().max(100).openapi({ param: { name: "id", in: "path" } }) });

export function presentBridge(row: BridgeRow, status: BridgeStatus): z.infer<typeof Bridge> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    credential_prefix: row.credentialPrefix,
    created_at: row.createdAt,
    credential_rotated_at: row.credentialRotatedAt,
    ...status,
  };
}
