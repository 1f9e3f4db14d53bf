// The pages the authorization endpoint shows a person: the consent screen (which app, what it
// asks for in words, the patient to share when it asks to pick one, Approve / Deny) and the error
// page for a request that cannot be sent back to the app (unknown client, unregistered
// redirect_uri). Server-rendered, every value HTML-escaped, no script and no external asset; the
// one stylesheet is inline under a per-response nonce, and the headers forbid everything else
// (framing included). Plain: pure functions of their input, so unit tests render them.

export interface PatientChoice {
  id: string;
  name: string;
  birthDate?: string;
}

export interface ConsentView {
  clientName: string;
  organizationName: string;
  userName: string;
  /** The scopes requested, each with its words. */
  scopes: { scope: string; words: string }[];
  /** Where the decision form posts (and the patient search gets). */
  action: string;
  requestId: string;
  csrf: string;
  /** The EHR launch's patient, shown (not chosen). */
  launchPatient?: PatientChoice;
  /** Standalone launch/patient: the search and the patients to pick from. */
  picker?: { query: string; patients: PatientChoice[] };
  /** A problem with the last submission (no patient picked). */
  notice?: string;
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (ch) => ESCAPES[ch]!);
}

const STYLE = `body{font:16px/1.45 system-ui,sans-serif;max-width:38rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.35rem}ul{padding-left:1.2rem}li{margin:.25rem 0}.muted{color:#57606a;font-size:.9rem}
fieldset{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:.75rem}label{display:block;margin:.3rem 0}
.actions{display:flex;gap:.75rem;margin-top:1rem}button{font:inherit;padding:.45rem 1.1rem;border-radius:6px;border:1px solid #8c959f;background:#f6f8fa;cursor:pointer}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}.notice{color:#a40e26}code{font-size:.9rem}`;

export interface Page {
  html: string;
  headers: Record<string, string>;
}

/** The response headers of a page: its CSP (`formTargets` may receive its forms, redirects after them included). */
export function pageHeaders(nonce: string, formTargets: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets.map(cspSource)].join(" ");
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form's POST, which the CSRF check refuses.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    pragma: "no-cache",
  };
}

/** A URL as a CSP source: its scheme, host and path (no query, never a quote or a semicolon). */
function cspSource(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`.replace(/[;,'\s]/g, encodeURIComponent);
}

function layout(title: string, nonce: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="same-origin"><title>${escapeHtml(title)}</title><style nonce="${escapeHtml(nonce)}">${STYLE}</style></head><body>${body}</body></html>`;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

function patientLabel(p: PatientChoice): string {
  return `${escapeHtml(p.name)}${p.birthDate ? ` <span class="muted">born ${escapeHtml(p.birthDate)}</span>` : ""} <span class="muted">(Patient/${escapeHtml(p.id)})</span>`;
}

export function renderConsentPage(view: ConsentView, nonce: string): string {
  const scopes = view.scopes.map((s) => `<li>${escapeHtml(s.words)} <span class="muted"><code>${escapeHtml(s.scope)}</code></span></li>`).join("");
  const launched = view.launchPatient ? `<p>Patient: <strong>${patientLabel(view.launchPatient)}</strong></p>` : "";
  let search = "";
  let choices = "";
  if (view.picker) {
    search = `<form method="get" action="${escapeHtml(view.action)}" role="search">${hidden("request", view.requestId)}<label>Find the patient to share <input type="search" name="q" value="${escapeHtml(view.picker.query)}" maxlength="100" autocomplete="off"></label><button type="submit">Search</button></form>`;
    const options = view.picker.patients.map((p, i) => `<label><input type="radio" name="patient" value="${escapeHtml(p.id)}"${i === 0 && view.picker?.patients.length === 1 ? " checked" : ""}> ${patientLabel(p)}</label>`).join("");
    choices = `<fieldset><legend>Patient to share</legend>${options || `<p class="muted">No patient matches${view.picker.query ? ` “${escapeHtml(view.picker.query)}”` : ""}.</p>`}</fieldset>`;
  }
  const notice = view.notice ? `<p class="notice" role="alert">${escapeHtml(view.notice)}</p>` : "";
  const body = `<main><h1>${escapeHtml(view.clientName)} asks for access</h1>
<p>Signed in to <strong>${escapeHtml(view.organizationName)}</strong> as <strong>${escapeHtml(view.userName)}</strong>.</p>
<p>If you approve, <strong>${escapeHtml(view.clientName)}</strong> will be able to:</p><ul>${scopes}</ul>${launched}${notice}${search}
<form method="post" action="${escapeHtml(view.action)}">${hidden("request", view.requestId)}${hidden("csrf", view.csrf)}${choices}
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></div></form>
<p class="muted">Only approve apps you trust.</p></main>`;
  return layout(`Authorize ${view.clientName}`, nonce, body);
}

export function renderErrorPage(title: string, message: string, nonce: string): string {
  return layout(title, nonce, `<main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p class="muted">The app's request cannot be completed, and it was not sent back to the app.</p></main>`);
}

export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, "");
}
