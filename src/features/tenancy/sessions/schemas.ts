// The console session API's shapes.
import { z } from "@hono/zod-openapi";
import { ROLES } from "../auth/permissions";

export const SignInBody = z
  .object({
    organization_id: z.string().trim().min(1).max(200),
    api_key: z.string().trim().min(1).max(200).openapi({ description: "An administrator's or clinician's API key; exchanged for the session, never kept by the browser" }),
  })
  .openapi("ConsoleSignIn");

export const ConsoleSessionSchema = z
  .object({
    organization: z.object({ id: z.string(), name: z.string() }),
    role: z.enum(ROLES),
    scopes: z.array(z.string()),
    permissions: z.array(z.string()).openapi({ description: "What the session may do; the console hides the rest (the API refuses it too)" }),
    key: z.object({ id: z.string(), name: z.string(), key_prefix: z.string() }).optional().openapi({ description: "The API key signed in with (absent for a user's password sign-in)" }),
    user: z
      .object({ id: z.string(), email: z.string(), name: z.string(), fhir_user: z.string().optional() })
      .optional()
      .openapi({ description: "The user signed in with a password (absent for an API key's session)" }),
    created_at: z.string(),
    expires_at: z.string().openapi({ description: "When the session ends without further requests: the earlier of the idle and the absolute expiry" }),
    absolute_expires_at: z.string(),
    idle_timeout_seconds: z.number().int(),
  })
  .openapi("ConsoleSession");

export type ConsoleSessionView = z.infer<typeof ConsoleSessionSchema>;
