// The authorization endpoint's steps, from the app's request to the redirect back with a code:
// 1. check the request (request.ts): an unusable client or redirect_uri is an error page;
// 2. find the person: a signed-in console user of this org, else the console's sign-in (with a
//    return URL back here);
// 3. take the EHR launch's context (launches.ts), if the app was launched;
// 4. store the pending request and show the consent screen (consent-page.ts), with a patient
//    picker for a standalone launch/patient;
// 5. the decision (a POST of the consent form, CSRF-checked and bound to the same session): Deny
//    redirects with error=access_denied, Approve with a one-time code (60 s) and the state.
// Every outcome is audited (smart.authorize) in the org's trail, naming the user when known.
import type { Database } from "../../../platform/db/client";
import type { OrgContexts } from "../../../platform/org-context";
import type { Principal } from "../../../platform/principal";
import { recordManagementAction } from "../../audit";
import type { Bundle, Resource } from "../../fhir";
import { type UserRow, userPrincipal } from "../../identity";
import { ClientApplicationStore } from "../clients";
import type { ConsentView, PatientChoice } from "../consent-page";
import { claimLaunch } from "../launches";
import { describeScope } from "../scopes";
import { constantTimeEqual, newSecret, sha256Hex } from "../secrets";
import type { AuthorizationRow, ClientApplicationRow } from "../tables";
import { AuthorizationStore, CONSENT_SECONDS } from "./authorizations";
import { type AuthorizeParams, checkAuthorizeRequest, redirectWith } from "./request";
import { consoleUserOf } from "./session";

export interface FlowDeps {
  env: object;
  control: Database;
  contexts: OrgContexts;
  orgId: string;
  fhirBase: string;
  /** The consent form's URL (GET: the patient search; POST: the decision). */
  consentUrl: string;
  /** The console's sign-in, returning to `returnTo` (a path of this service). */
  signInUrl(returnTo: string): string;
  /** The console session cookie's value. */
  sessionId: string | undefined;
  now?: number;
}

export type FlowOutcome =
  | { kind: "page"; status: 400 | 403; title: string; message: string }
  | { kind: "redirect"; location: string }
  | { kind: "consent"; view: ConsentView; redirectUri: string };

const PICKER_SIZE = 20;

async function audit(deps: FlowDeps, principal: Principal, outcome: "0" | "4", entityId: string | undefined, reason?: string, detail?: Record<string, string>): Promise<void> {
  let ctx: Awaited<ReturnType<OrgContexts["forOrg"]>>;
  try {
    ctx = await deps.contexts.forOrg(deps.orgId);
  } catch {
    return; // No such organization: no trail to write to.
  }
  await recordManagementAction(ctx, principal, { action: "smart.authorize", outcome, ...(entityId ? { entityId } : {}), ...(reason ? { reason } : {}), ...(detail ? { detail } : {}) });
}

const clientPrincipal = (orgId: string, client: { id: string; name: string } | undefined, clientId: string): Principal => ({
  orgId,
  keyId: `client:${client?.id ?? clientId}`,
  keyName: client?.name ?? clientId,
  role: "service",
  scopes: [],
  client: { id: client?.id ?? clientId, name: client?.name ?? clientId },
});

const userActingForClient = (user: UserRow, client: ClientApplicationRow): Principal => ({ ...userPrincipal(user), client: { id: client.id, name: client.name } });

/** Steps 1–4: GET /auth/authorize. `returnTo`: this request's own path and query (for the sign-in's way back). */
export async function startAuthorization(deps: FlowDeps, params: AuthorizeParams, returnTo: string): Promise<FlowOutcome> {
  const now = deps.now ?? Date.now();
  const clientId = params.client_id?.[0];
  const client = clientId ? await new ClientApplicationStore(deps.control).get(deps.orgId, clientId) : undefined;
  const checked = checkAuthorizeRequest(params, client, deps.fhirBase);
  if (checked.kind === "page") {
    await audit(deps, clientPrincipal(deps.orgId, client, clientId ?? "unknown"), "4", clientId, `${checked.title}: ${checked.message}`);
    return { kind: "page", status: 400, title: checked.title, message: checked.message };
  }
  if (checked.kind === "redirect") {
    await audit(deps, clientPrincipal(deps.orgId, client, clientId ?? "unknown"), "4", clientId, `${checked.error}: ${checked.description}`);
    return { kind: "redirect", location: redirectWith(checked.redirectUri, { error: checked.error, error_description: checked.description, state: checked.state }) };
  }
  const { request } = checked;
  const person = await consoleUserOf(deps.control, deps.env, deps.sessionId, deps.orgId, now);
  if (person.kind === "none") return { kind: "redirect", location: deps.signInUrl(returnTo) };
  if (person.kind === "not-a-user") {
    return { kind: "page", status: 403, title: "Sign in as a user", message: "You are signed in to the console with an API key. Sign out and sign in with your email and password to approve apps." };
  }
  if (person.kind === "other-org") {
    return { kind: "page", status: 403, title: "Signed in to another organization", message: `You are signed in to ${person.orgName}; this app asks for another organization's data. Sign out and sign in to that organization.` };
  }
  const { user } = person;
  const refuse = async (error: "invalid_request" | "access_denied", description: string) => {
    await audit(deps, userActingForClient(user, request.client), "4", request.client.id, `${error}: ${description}`);
    return { kind: "redirect", location: redirectWith(request.redirectUri, { error, error_description: description, state: request.state }) } as const;
  };

  let patient: string | null = null;
  let encounter: string | null = null;
  if (request.launch !== undefined) {
    const launch = await claimLaunch(deps.control, deps.orgId, request.client.id, request.launch, now);
    if (!launch) return refuse("invalid_request", "Unknown, expired or used launch (or it is for another app)");
    if (!launch.createdBy.startsWith("key:") && launch.createdBy !== user.id) return refuse("invalid_request", "The launch was started by another user");
    patient = launch.patient;
    encounter = launch.encounter;
  }
  const requestId = crypto.randomUUID();
  const csrf = newSecret("csrf");
  const row: AuthorizationRow = {
    id: requestId,
    orgId: deps.orgId,
    clientId: request.client.id,
    userId: user.id,
    sessionHash: person.sessionHash,
    csrfHash: await sha256Hex(csrf),
    redirectUri: request.redirectUri,
    state: request.state,
    scopes: request.scopes,
    codeChallenge: request.codeChallenge,
    nonce: request.nonce ?? null,
    patient,
    encounter,
    ehrLaunch: request.launch !== undefined,
    expiresAt: Math.floor(now / 1000) + CONSENT_SECONDS,
    createdAt: new Date(now).toISOString(),
    decidedAt: null,
    codeHash: null,
    exchangedAt: null,
    grantId: null,
  };
  await new AuthorizationStore(deps.control).create(row);
  return consentOutcome(deps, row, request.client, user, person.orgName, csrf, "", undefined);
}

/** Whether the request asks the user to pick the patient (standalone launch/patient). */
const picksPatient = (row: AuthorizationRow) => !row.ehrLaunch && row.scopes.includes("launch/patient");

function patientChoice(r: Resource): PatientChoice {
  const name = (r.name as { given?: string[]; family?: string; text?: string }[] | undefined)?.[0];
  const text = name ? (name.text ?? [...(name.given ?? []), name.family ?? ""].join(" ").trim()) : "";
  return { id: r.id ?? "", name: text || `Patient ${r.id ?? ""}`, ...(typeof r.birthDate === "string" ? { birthDate: r.birthDate } : {}) };
}

async function patientsFor(deps: FlowDeps, user: UserRow, query: string): Promise<PatientChoice[]> {
  const ctx = await deps.contexts.forOrg(deps.orgId);
  const search = new URLSearchParams({ _count: String(PICKER_SIZE) });
  if (query.trim()) search.set("name", query.trim());
  const bundle: Bundle = await ctx.fhir(userPrincipal(user)).search("Patient", search);
  return (bundle.entry ?? []).flatMap((e) => (e.resource?.resourceType === "Patient" && e.resource.id ? [patientChoice(e.resource)] : []));
}

async function launchPatient(deps: FlowDeps, user: UserRow, id: string): Promise<PatientChoice | undefined> {
  try {
    const ctx = await deps.contexts.forOrg(deps.orgId);
    return patientChoice(await ctx.fhir(userPrincipal(user)).read("Patient", id));
  } catch {
    return undefined;
  }
}

async function consentOutcome(deps: FlowDeps, row: AuthorizationRow, client: ClientApplicationRow, user: UserRow, orgName: string, csrf: string, query: string, notice: string | undefined): Promise<FlowOutcome> {
  const view: ConsentView = {
    clientName: client.name,
    organizationName: orgName,
    userName: user.name || user.email,
    scopes: row.scopes.map((scope) => ({ scope, words: describeScope(scope) })),
    action: deps.consentUrl,
    requestId: row.id,
    csrf,
    ...(notice ? { notice } : {}),
  };
  if (row.ehrLaunch && row.patient) view.launchPatient = (await launchPatient(deps, user, row.patient)) ?? { id: row.patient, name: `Patient ${row.patient}` };
  if (picksPatient(row)) view.picker = { query, patients: await patientsFor(deps, user, query) };
  return { kind: "consent", view, redirectUri: row.redirectUri };
}

interface Pending {
  row: AuthorizationRow;
  client: ClientApplicationRow;
  user: UserRow;
  orgName: string;
}

/** The pending request `requestId` of the signed-in user who started it, or the page saying why not. */
async function pendingOf(deps: FlowDeps, requestId: string | undefined, now: number): Promise<Pending | { kind: "page"; status: 400 | 403; title: string; message: string }> {
  const expired = { kind: "page", status: 400, title: "This request has ended", message: "The authorization request is unknown, was already decided or has expired. Start again from the app." } as const;
  if (!requestId || !/^[0-9a-f-]{36}$/.test(requestId)) return expired;
  const row = await new AuthorizationStore(deps.control).get(deps.orgId, requestId);
  if (!row || row.decidedAt || row.expiresAt <= Math.floor(now / 1000)) return expired;
  const person = await consoleUserOf(deps.control, deps.env, deps.sessionId, deps.orgId, now);
  if (person.kind !== "user" || person.sessionHash !== row.sessionHash || person.user.id !== row.userId) {
    return { kind: "page", status: 403, title: "Not your request", message: "This authorization request belongs to another console session. Start again from the app." };
  }
  const client = await new ClientApplicationStore(deps.control).get(deps.orgId, row.clientId);
  if (client?.status !== "active") return expired;
  return { row, client, user: person.user, orgName: person.orgName };
}

/** GET /auth/authorize/consent: the consent screen again, with the patient search's results. A fresh CSRF token replaces the old one. */
export async function showConsent(deps: FlowDeps, requestId: string | undefined, query: string): Promise<FlowOutcome> {
  const now = deps.now ?? Date.now();
  const pending = await pendingOf(deps, requestId, now);
  if ("kind" in pending) return pending;
  const csrf = newSecret("csrf");
  await new AuthorizationStore(deps.control).setCsrf(pending.row.id, await sha256Hex(csrf));
  return consentOutcome(deps, pending.row, pending.client, pending.user, pending.orgName, csrf, query.slice(0, 100), undefined);
}

/** Step 5: POST /auth/authorize/consent. `sameOrigin`: the browser's Origin is this service's, or it sent none. */
export async function decide(deps: FlowDeps, form: Record<string, string | undefined>, sameOrigin: boolean): Promise<FlowOutcome> {
  const now = deps.now ?? Date.now();
  if (!sameOrigin) return { kind: "page", status: 403, title: "Refused", message: "The decision was sent from another site (cross-site request refused)." };
  const pending = await pendingOf(deps, form.request, now);
  if ("kind" in pending) return pending;
  const { row, client, user } = pending;
  const store = new AuthorizationStore(deps.control);
  if (!form.csrf || !constantTimeEqual(await sha256Hex(form.csrf), row.csrfHash)) {
    return { kind: "page", status: 403, title: "Refused", message: "The consent form's token is missing or stale (cross-site request refused). Start again from the app." };
  }
  const principal = userActingForClient(user, client);
  if (form.decision === "deny") {
    if (!(await store.deny(row.id, now))) return pendingGone();
    await audit(deps, principal, "4", client.id, "access_denied: the user denied the request", { scope: row.scopes.join(" ") });
    return { kind: "redirect", location: redirectWith(row.redirectUri, { error: "access_denied", error_description: "The user denied the request", state: row.state ?? undefined }) };
  }
  if (form.decision !== "approve") return { kind: "page", status: 400, title: "Invalid decision", message: "Choose Approve or Deny." };
  let patient = row.patient;
  if (picksPatient(row)) {
    const picked = form.patient?.trim();
    const chosen = picked && /^[A-Za-z0-9.-]{1,64}$/.test(picked) ? await launchPatient(deps, user, picked) : undefined;
    if (!chosen) {
      const csrf = newSecret("csrf");
      await store.setCsrf(row.id, await sha256Hex(csrf));
      return consentOutcome(deps, row, client, user, pending.orgName, csrf, "", "Pick the patient to share before approving.");
    }
    patient = chosen.id;
  }
  const code = newSecret("code");
  if (!(await store.approve(row.id, await sha256Hex(code), patient, now))) return pendingGone();
  await audit(deps, principal, "0", client.id, undefined, { scope: row.scopes.join(" "), ...(patient ? { patient } : {}) });
  return { kind: "redirect", location: redirectWith(row.redirectUri, { code, state: row.state ?? undefined }) };
}

const pendingGone = (): FlowOutcome => ({ kind: "page", status: 400, title: "This request has ended", message: "The authorization request was already decided. Start again from the app." });
