// The identity and client-application APIs' shapes (/api/v1/users, /api/v1/auth,
// /api/v1/client-applications), as the OpenAPI document (and so the generated client) declares them.
import type { components } from "../../../clients/typescript/api.generated";

export type User = components["schemas"]["User"];
export type UserInvitation = components["schemas"]["UserInvitation"];
export type ClientApplication = components["schemas"]["ClientApplication"];

/** The roles a person may have (service is for systems: API keys only). */
export const USER_ROLES = [
  { role: "admin", label: "Administrator" },
  { role: "clinician", label: "Clinician" },
  { role: "integration_engineer", label: "Integration engineer" },
  { role: "auditor", label: "Auditor (read-only)" },
] as const satisfies readonly { role: User["role"]; label: string }[];

export const roleLabel = (role: User["role"]) => USER_ROLES.find((r) => r.role === role)?.label ?? role.replace("_", " ");
