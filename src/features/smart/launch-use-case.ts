// Starting an EHR launch: the client must be an active app of the org with a launch_uri, and the
// patient (and encounter) must be ones the person launching can read. And what can be launched.
import { notFound, unprocessable } from "../../platform/errors";
import type { OrgContext } from "../../platform/org-context";
import type { Principal } from "../../platform/principal";
import { ClientApplicationStore } from "./clients";
import { createLaunch } from "./launches";

/** More apps than a "Launch app" menu can usefully list. */
const LAUNCHABLE_MAX = 100;

/** The apps startLaunch would take: active, with a launch_uri (so with the authorization_code grant), by name. */
export async function launchableApps(ctx: OrgContext): Promise<{ id: string; name: string; launch_uri: string }[]> {
  const rows = await new ClientApplicationStore(ctx.control).launchable(ctx.orgId, LAUNCHABLE_MAX);
  return rows.map((r) => ({ id: r.id, name: r.name, launch_uri: r.launchUri ?? "" }));
}

export interface LaunchInput {
  client_id: string;
  patient: string;
  encounter?: string | undefined;
}

export async function startLaunch(ctx: OrgContext, principal: Principal, fhirBase: string, input: LaunchInput) {
  const client = await new ClientApplicationStore(ctx.control).get(ctx.orgId, input.client_id);
  if (!client) throw notFound("Client application not found", "CLIENT_APPLICATION_NOT_FOUND");
  if (client.status !== "active" || !client.grantTypes.includes("authorization_code")) throw unprocessable("The client is not an active app (authorization_code)", [{ path: "client_id", message: "not an active app" }]);
  if (!client.launchUri) throw unprocessable("The client has no launch_uri: it cannot be launched from the console", [{ path: "client_id", message: "no launch_uri" }]);
  // 404 when the person cannot read it (or it does not exist).
  const fhir = ctx.fhir(principal);
  await fhir.read("Patient", input.patient);
  if (input.encounter) await fhir.read("Encounter", input.encounter);
  const createdBy = principal.user ? principal.user.id : `key:${principal.keyId}`;
  const { launch, expiresAt } = await createLaunch(ctx.control, { orgId: ctx.orgId, clientId: client.id, patient: input.patient, encounter: input.encounter, createdBy });
  const url = new URL(client.launchUri);
  url.searchParams.set("iss", fhirBase);
  url.searchParams.set("launch", launch);
  return { launch, launch_url: url.toString(), iss: fhirBase, expires_at: new Date(expiresAt * 1000).toISOString() };
}
