// The principal a user acts as: their role, `user` naming them (AuditEvents name the person), and
// the access policy they are assigned.
import type { Principal } from "../../../platform/principal";
import type { UserRow } from "../tables";

export function userPrincipal(user: UserRow): Principal {
  const person = { id: user.id, login: user.email, name: user.name, ...(user.fhirUser ? { fhirUser: user.fhirUser } : {}) };
  return { orgId: user.orgId, keyId: user.id, keyName: user.email, role: user.role, scopes: [], user: person, ...(user.accessPolicyId ? { accessPolicyId: user.accessPolicyId } : {}) };
}
