// Interoperability: SMART App Launch driven by the SMART on FHIR JavaScript client (npm
// `fhirclient` 2.6, unchanged) from Node, against the running service over real HTTP. The issue
// asks for `FHIR.oauth2.authorize` / `ready` in Chromium, which test/browser/smart-browser-app.test.ts
// does (BrowserAdapter, sessionStorage, the console's sign-in honouring return_to); this drives the
// same library code (smart.authorize / smart.ready, its PKCE, state storage, code exchange, refresh
// and FHIR requests) through its Node entry with a fake request/response pair and an in-memory
// storage, and plays the person's part (the console sign-in, the consent form) with fetch.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import smart from "fhirclient";
import type Client from "fhirclient/lib/Client";
import { beforeAll, describe, expect, it } from "vitest";
import { type InteropService, NO_KEEP_ALIVE, interopService } from "./service";

let worker: InteropService;
const REDIRECT = "http://127.0.0.1:9/callback";
const PASSWORD = "correct horse battery";

beforeAll(() => {
  worker = interopService(import.meta.filename);
});

const admin = (path: string, init: { method?: string; json?: unknown } = {}) =>
  fetch(`${worker.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${worker.apiKey}`, "x-organization-id": worker.orgId, "content-type": "application/json", ...NO_KEEP_ALIVE },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });

async function signedInUser(): Promise<{ cookie: string; id: string }> {
  const email = `${crypto.randomUUID().slice(0, 8)}@example.org`;
  const invited = (await (await admin("/api/v1/users/invitations", { method: "POST", json: { email, name: "Dana Doe", role: "clinician", fhir_user: "Practitioner/interop" } })).json()) as { id: string; invitation: { token: string } };
  const post = (path: string, json: unknown) => fetch(`${worker.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...NO_KEEP_ALIVE }, body: JSON.stringify(json) });
  expect((await post("/api/v1/auth/invitations/accept", { token: invited.invitation.token, password: PASSWORD })).status).toBe(200);
  const signedIn = await post("/api/v1/auth/sign-in", { organization_id: worker.orgId, email, password: PASSWORD });
  expect(signedIn.status).toBe(201);
  return { id: invited.id, cookie: (signedIn.headers.get("set-cookie") ?? "").split(";")[0]! };
}

/** fhirclient's storage (what a session would keep between authorize and ready). */
function memoryStorage() {
  const map = new Map<string, unknown>();
  return {
    get: async (k: string) => map.get(k),
    set: async (k: string, v: unknown) => void map.set(k, v),
    unset: async (k: string) => map.delete(k),
  };
}

/** A request as Node's http server would hand fhirclient (the app's own URL), and a response that records its redirect. */
function exchangeAt(url: string) {
  const u = new URL(url);
  const req = new IncomingMessage(new Socket());
  req.url = `${u.pathname}${u.search}`;
  req.headers = { host: u.host };
  const res = new ServerResponse(req);
  let location = "";
  res.writeHead = ((status: number, headers: Record<string, string>) => {
    expect(status).toBe(302);
    location = headers.location ?? "";
    return res;
  }) as never;
  res.end = (() => res) as never;
  return { req, res, location: () => location };
}

/** The person's part: the consent screen (from the authorization URL fhirclient redirected to), approved; the redirect back. */
async function approve(authorizeUrl: string, cookie: string, patient?: string): Promise<string> {
  const page = await fetch(authorizeUrl, { headers: { cookie, ...NO_KEEP_ALIVE }, redirect: "manual" });
  expect(page.status, page.headers.get("location") ?? "").toBe(200);
  const html = await page.text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
  const form = new URLSearchParams({ request: field("request"), csrf: field("csrf"), decision: "approve", ...(patient ? { patient } : {}) });
  const decided = await fetch(`${worker.url}/fhir/r4/${worker.orgId}/auth/authorize/consent`, {
    method: "POST",
    body: form,
    headers: { cookie, origin: new URL(worker.url).origin, "content-type": "application/x-www-form-urlencoded", ...NO_KEEP_ALIVE },
    redirect: "manual",
  });
  expect(decided.status).toBe(302);
  const back = decided.headers.get("location") ?? "";
  expect(back.startsWith(REDIRECT)).toBe(true);
  return back;
}

describe("fhirclient's authorize / ready against the running service", () => {
  it("standalone launch: PKCE, the patient picked, the code exchanged, the patient's data read, refresh", async () => {
    const fhirBase = `${worker.url}/fhir/r4/${worker.orgId}`;
    const patient = (await (await admin(`/fhir/r4/${worker.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Fhirclient", given: ["Ada"] }] } })).json()) as { id: string };
    const other = (await (await admin(`/fhir/r4/${worker.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Elsewhere" }] } })).json()) as { id: string };
    const app = (await (
      await admin("/api/v1/client-applications", {
        method: "POST",
        json: { name: "fhirclient app", type: "public", redirect_uris: [REDIRECT], scopes: ["launch/patient", "openid", "fhirUser", "offline_access", "patient/Patient.rs", "patient/Observation.rs"] },
      })
    ).json()) as { id: string };
    const user = await signedInUser();
    const storage = memoryStorage();

    const start = exchangeAt("http://127.0.0.1:9/launch");
    await smart(start.req, start.res, storage).authorize({
      iss: fhirBase,
      clientId: app.id,
      scope: "launch/patient openid fhirUser offline_access patient/Patient.rs patient/Observation.rs",
      redirectUri: REDIRECT,
      pkceMode: "required",
    });
    const authorizeUrl = new URL(start.location());
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${fhirBase}/auth/authorize`);
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("aud")).toBe(fhirBase);

    const back = await approve(authorizeUrl.toString(), user.cookie, patient.id);
    const callback = exchangeAt(back);
    const client: Client = await smart(callback.req, callback.res, storage).ready();
    expect(client.getPatientId()).toBe(patient.id);
    expect(client.getFhirUser()).toBe("Practitioner/interop");
    expect(client.getIdToken()).toMatchObject({ sub: user.id, aud: app.id, iss: fhirBase });
    const read = await client.patient.read();
    expect(read).toMatchObject({ resourceType: "Patient", id: patient.id });
    await expect(client.request(`Patient/${other.id}`)).rejects.toMatchObject({ status: 404 });

    const before = client.state.tokenResponse?.access_token;
    await client.refresh();
    expect(client.state.tokenResponse?.access_token).not.toBe(before);
    expect(await client.patient.read()).toMatchObject({ id: patient.id });
  });

  it("EHR launch: the console's launch URL, then authorize({ iss, launch }) and ready", async () => {
    const fhirBase = `${worker.url}/fhir/r4/${worker.orgId}`;
    const patient = (await (await admin(`/fhir/r4/${worker.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Launched" }] } })).json()) as { id: string };
    const app = (await (
      await admin("/api/v1/client-applications", {
        method: "POST",
        json: { name: "EHR app", type: "public", redirect_uris: [REDIRECT], launch_uri: "http://127.0.0.1:9/launch", scopes: ["launch", "openid", "fhirUser", "patient/Patient.rs"] },
      })
    ).json()) as { id: string };
    const user = await signedInUser();
    const launched = await fetch(`${worker.url}/api/v1/smart/launches`, {
      method: "POST",
      headers: { cookie: user.cookie, "x-cdis-console": "1", "content-type": "application/json", ...NO_KEEP_ALIVE },
      body: JSON.stringify({ client_id: app.id, patient: patient.id }),
    });
    expect(launched.status).toBe(201);
    const { launch_url } = (await launched.json()) as { launch_url: string };

    // The app's launch page, as the console opened it: fhirclient reads iss and launch from its URL.
    const storage = memoryStorage();
    const start = exchangeAt(launch_url);
    await smart(start.req, start.res, storage).authorize({ clientId: app.id, scope: "launch openid fhirUser patient/Patient.rs", redirectUri: REDIRECT, pkceMode: "required" });
    expect(new URL(start.location()).searchParams.get("launch")).toBe(new URL(launch_url).searchParams.get("launch"));
    expect(new URL(start.location()).searchParams.get("aud")).toBe(fhirBase);

    const callback = exchangeAt(await approve(start.location(), user.cookie));
    const client = await smart(callback.req, callback.res, storage).ready();
    expect(client.getPatientId()).toBe(patient.id);
    expect(await client.patient.read()).toMatchObject({ id: patient.id });
  });
});
