// Interoperability: Medplum's client (npm `@medplum/core`, MedplumClient, unchanged) against the
// running service over real HTTP: SMART Backend Services' client_credentials grant through
// `startClientLogin` (client_secret_post) at the org's token endpoint, then a FHIR read with the
// token it keeps. Another organization's client is refused at this org's token endpoint.
import { MedplumClient } from "@medplum/core";
import { describe, expect, it } from "vitest";
import { type InteropService, NO_KEEP_ALIVE, interopService } from "./service";

const service = interopService(import.meta.filename);

async function api<T>(org: { orgId: string; apiKey: string }, path: string, body: unknown, type = "application/json"): Promise<T> {
  const res = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.apiKey}`, "x-organization-id": org.orgId, "content-type": type, ...NO_KEEP_ALIVE },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const backendClient = (org: { orgId: string; apiKey: string }) =>
  api<{ id: string; client_secret: string }>(org, "/api/v1/client-applications", { name: "Medplum backend", type: "confidential", scopes: ["system/Patient.rs"] });

function medplum(s: InteropService): MedplumClient {
  return new MedplumClient({
    baseUrl: `${s.url}/`,
    fhirUrlPath: `fhir/r4/${s.orgId}`,
    tokenUrl: `${s.url}/fhir/r4/${s.orgId}/auth/token`,
    fetch: (url: string | URL | Request, init?: RequestInit) => fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...NO_KEEP_ALIVE } }),
  });
}

describe("MedplumClient (Backend Services, client_credentials)", () => {
  it("startClientLogin gets a token and readResource reads the org's patient with it", async () => {
    const patient = await api<{ id: string }>(service, `/fhir/r4/${service.orgId}/Patient`, { resourceType: "Patient", name: [{ family: "Medplum", given: ["Mia"] }] }, "application/fhir+json");
    const client = await backendClient(service);
    const mp = medplum(service);
    await mp.startClientLogin(client.id, client.client_secret);
    expect(mp.getAccessToken()).toBeTruthy();
    const read = await mp.readResource("Patient", patient.id);
    expect(read.id).toBe(patient.id);
    expect(read.name?.[0]?.family).toBe("Medplum");
  });

  it("another organization's client is refused at this org's token endpoint", async () => {
    const other = service.others[0];
    if (!other) throw new Error("no second organization");
    const theirs = await backendClient(other);
    const mp = medplum(service);
    await expect(mp.startClientLogin(theirs.id, theirs.client_secret)).rejects.toThrow(/invalid_client|unauthori[sz]ed|unknown/i);
    expect(mp.getAccessToken()).toBeUndefined();
  });
});
