// Users as the identity tests make them: invited by the tenant's admin key, accepted with a
// password, signed in to the console.
import { expect } from "vitest";
import type { Role } from "../../src/platform/principal";
import { call, type Tenant } from "../support/tenants";

export const PASSWORD = "correct horse battery";
export const WRITE = { "x-cdis-console": "1", "content-type": "application/json" };

export interface Invited {
  id: string;
  email: string;
  token: string;
}

export async function invite(t: Tenant, role: Role = "clinician", extra: Record<string, unknown> = {}): Promise<Invited> {
  const email = `${crypto.randomUUID().slice(0, 8)}@Example.org`;
  const res = await t.fetch("/api/v1/users/invitations", { method: "POST", json: { email, name: "Dana Doe", role, ...extra } });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; email: string; status: string; invitation: { token: string; expires_at: string } };
  expect(body.status).toBe("invited");
  return { id: body.id, email: body.email, token: body.invitation.token };
}

export const accept = (token: string, password = PASSWORD) => call("/api/v1/auth/invitations/accept", { method: "POST", json: { token, password } });

export async function signIn(orgId: string, email: string, password = PASSWORD) {
  const res = await call("/api/v1/auth/sign-in", { method: "POST", json: { organization_id: orgId, email, password } });
  return { res, session: (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "" };
}

export async function activeUser(t: Tenant, role: Role = "clinician", extra: Record<string, unknown> = {}) {
  const u = await invite(t, role, extra);
  expect((await accept(u.token)).status).toBe(200);
  const { res, session } = await signIn(t.orgId, u.email);
  expect(res.status).toBe(201);
  return { ...u, session };
}
