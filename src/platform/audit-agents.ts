// The AuditEvent agents a principal makes: the person when there is one (their fhirUser, else
// their user id; `altId` their login), and the credential they acted with (the API key) as
// today. Shared by the management trail and the FHIR store's, so both name people alike.
import type { Principal } from "./principal";

const AUTHOR = { system: "http://terminology.hl7.org/CodeSystem/v3-ParticipationType", code: "AUT", display: "author (originator)" };
export const USER_SYSTEM = "urn:cdis:user";
export const API_KEY_SYSTEM = "urn:cdis:api-key";

export function principalAgents(principal: Principal, keyAltId: boolean): Record<string, unknown>[] {
  const role = [{ coding: [{ system: "urn:cdis:role", code: principal.role }], text: principal.role }];
  const key = {
    who: { identifier: { system: API_KEY_SYSTEM, value: principal.keyId }, display: principal.keyName },
    ...(keyAltId ? { altId: principal.keyId } : {}),
  };
  const { user } = principal;
  if (!user) return [{ type: { coding: [AUTHOR] }, ...key, role, requestor: true }];
  const display = user.name ?? user.login;
  const person = {
    type: { coding: [AUTHOR] },
    who: user.fhirUser
      ? { reference: user.fhirUser, identifier: { system: USER_SYSTEM, value: user.id }, display }
      : { identifier: { system: USER_SYSTEM, value: user.id }, display },
    altId: user.login,
    role,
    requestor: true,
  };
  // A console session's credential is the user itself; a key acting for a user is named beside them.
  return principal.keyId === user.id ? [person] : [person, { type: { coding: [AUTHOR] }, ...key, requestor: false }];
}
