// Sign-in: the organization id and either a user's email and password (the default) or an API
// key (the second option), exchanged once for a session cookie, or the organization's single
// sign-on when it has one (a refused one comes back as `?sso_error=`). Secrets are cleared from the form
// as soon as the exchange answers; nothing is written to storage. A user with two-factor sign-in
// then gives the code from their app (identity/SecondFactorForm.tsx).
import { type FormEvent, useEffect, useState } from "react";
import { ApiFailure } from "../lib/api";
import { returnTarget } from "../lib/return-to";
import { lockedWords } from "../identity/locked-words";
import { SecondFactorForm } from "../identity/SecondFactorForm";
import { type SecondFactorChallenge, useSession } from "../lib/session";

type Method = "password" | "key";

/** The words for a refused sign-in: the service answers every refusal with one 401, a locked account adds Retry-After. */
export function signInRefusal(err: unknown, method: Method): string {
  if (!(err instanceof ApiFailure)) return String(err);
  if (method === "password" && err.status === 401) {
    if (err.retryAfterSeconds) return lockedWords(err.retryAfterSeconds);
    return "Invalid email or password. A disabled account, or one whose invitation has not been accepted yet, is refused the same way: ask an administrator of your organization.";
  }
  return err.message;
}

/** What the service's `?sso_error=` codes mean to the person (docs/identity.md lists them all). */
const SSO_ERRORS: Record<string, string> = {
  SSO_NOT_CONFIGURED: "This organization has no single sign-on set up.",
  IDP_UNKNOWN: "This identity provider is not (or no longer) offered by the organization. Choose one on this page.",
  STATE_INVALID: "The single sign-on could not be completed in this browser. Start it again from this page.",
  STATE_EXPIRED: "The single sign-on took too long. Start it again.",
  ACCESS_DENIED: "Your identity provider refused the sign-in (cancelled, or you are not assigned to this application).",
  DOMAIN_NOT_ALLOWED: "Your email address's domain may not sign in to this organization.",
  NOT_PROVISIONED: "You are not a user of this organization yet: ask an administrator to invite you.",
  NO_ROLE_MAPPED: "Your identity provider gave you no role in this organization: ask an administrator.",
  USER_DISABLED: "Your account is disabled: ask an administrator of your organization.",
  EMAIL_NOT_VERIFIED: "Your identity provider has not verified your email address.",
};

export function ssoRefusal(search: string): string | undefined {
  const code = new URLSearchParams(search).get("sso_error");
  if (!code) return undefined;
  return SSO_ERRORS[code] ?? `Single sign-on failed (${code}). Try again, or sign in with your password.`;
}

interface SsoInfo {
  enabled: boolean;
  identity_providers: { id: string; display_name: string; start_url: string }[];
}

/**
 * "Sign in with <identity provider>", a button for each of the organization's identity providers,
 * once the organization id names an organization with single sign-on (`GET /api/v1/auth/sso/{orgId}`, public), asked a moment after typing stops. The start
 * carries a SMART app's `return_to` along, so a person signing in by SSO lands on its consent screen too.
 */
function SingleSignOnOptions({ organizationId }: { organizationId: string }) {
  const [info, setInfo] = useState<SsoInfo & { orgId: string }>();
  useEffect(() => {
    if (!organizationId) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetch(`/api/v1/auth/sso/${encodeURIComponent(organizationId)}`, { signal: controller.signal, headers: { accept: "application/json" } })
        .then(async (res) => (res.ok ? setInfo({ ...((await res.json()) as SsoInfo), orgId: organizationId }) : setInfo(undefined)))
        .catch(() => undefined);
    }, 400);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [organizationId]);
  if (!info?.enabled || info.orgId !== organizationId) return null;
  const back = returnTarget(window.location.search);
  const hrefOf = (startUrl: string) => {
    if (!back) return startUrl;
    const url = new URL(startUrl, window.location.href);
    url.searchParams.set("return_to", back);
    return url.toString();
  };
  return (
    <p className="sso">
      {info.identity_providers.map((idp) => (
        <a key={idp.id} className="button-link" href={hrefOf(idp.start_url)} data-sso-start={idp.id}>
          {idp.display_name}
        </a>
      ))}
    </p>
  );
}

export function SignIn() {
  const { signIn, signInWithPassword, endedBecause } = useSession();
  const [method, setMethod] = useState<Method>("password");
  const [orgId, setOrgId] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<string | undefined>(() => ssoRefusal(window.location.search));
  const [busy, setBusy] = useState(false);
  const [challenge, setChallenge] = useState<SecondFactorChallenge | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (method === "password") setChallenge(await signInWithPassword(orgId.trim(), email.trim(), password));
      else await signIn(orgId.trim(), apiKey.trim());
    } catch (err) {
      setError(signInRefusal(err, method));
    } finally {
      setApiKey("");
      setPassword("");
      setBusy(false);
    }
  }

  function switchTo(m: Method) {
    setMethod(m);
    setError(undefined);
    setApiKey("");
    setPassword("");
  }

  if (challenge) {
    return (
      <main className="signin">
        <h1>Sign in to the console</h1>
        <SecondFactorForm
          organizationId={orgId.trim()}
          challenge={challenge}
          onExpired={(why) => {
            setChallenge(null);
            setError(why);
          }}
        />
      </main>
    );
  }

  return (
    <main className="signin">
      <h1>Sign in to the console</h1>
      {endedBecause && !error && (
        <p className="notice" role="status">
          {endedBecause}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-label={method === "password" ? "Sign in with email and password" : "Sign in with an API key"}>
        <label>
          Organization id
          <input name="organization" value={orgId} onChange={(e) => setOrgId(e.target.value)} required autoComplete="organization" />
        </label>
        {method === "password" ? (
          <>
            <label>
              Email
              <input name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required autoComplete="username" />
            </label>
            <label>
              Password
              <input name="password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} required autoComplete="current-password" />
            </label>
          </>
        ) : (
          <label>
            API key
            <input name="api_key" type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} required autoComplete="off" />
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <SingleSignOnOptions organizationId={orgId.trim()} />
      <p>
        {method === "password" ? (
          <button type="button" className="link-button" data-switch-to="key" onClick={() => switchTo("key")}>
            Sign in with an API key
          </button>
        ) : (
          <button type="button" className="link-button" data-switch-to="password" onClick={() => switchTo("password")}>
            Sign in with email and password
          </button>
        )}
      </p>
      <p className="muted">
        {method === "password"
          ? "An administrator invites you under Settings → Users; the invitation link sets your password. After 5 failed attempts the account is locked for a while."
          : "An administrator creates API keys under Settings → API keys. The key is exchanged for a session and never stored in this browser."}
      </p>
    </main>
  );
}
