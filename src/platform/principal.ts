// Who a request or a job acts as: an organization, a key (or a service such as a device platform's
// webhooks) and its role and scopes. Every floor names it (stores audit it, Durable Objects carry
// it), so it is plain vocabulary here; what each role may do is tenancy's (features/tenancy/auth/permissions.ts).

export const ROLES = ["admin", "clinician", "service"] as const;
export type Role = (typeof ROLES)[number];

export interface Principal {
  orgId: string;
  keyId: string;
  keyName: string;
  role: Role;
  scopes: string[];
}
