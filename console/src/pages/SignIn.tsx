// Sign-in: the organization id and either a user's email and password (the default) or an API
// key (the second option), exchanged once for a session cookie. Secrets are cleared from the form
// as soon as the exchange answers; nothing is written to storage.
import { type FormEvent, useState } from "react";
import { ApiFailure } from "../lib/api";
import { useSession } from "../lib/session";

type Method = "password" | "key";

/** The words for a refused sign-in: the service answers every refusal with one 401, a locked account adds Retry-After. */
export function signInRefusal(err: unknown, method: Method): string {
  if (!(err instanceof ApiFailure)) return String(err);
  if (method === "password" && err.status === 401) {
    if (err.retryAfterSeconds) {
      const minutes = Math.ceil(err.retryAfterSeconds / 60);
      return `Too many failed sign-ins: this account is locked. Try again in ${minutes === 1 ? "1 minute" : `${minutes} minutes`}.`;
    }
    return "Invalid email or password. A disabled account, or one whose invitation has not been accepted yet, is refused the same way: ask an administrator of your organization.";
  }
  return err.message;
}

/**
 * Where "Sign in with <identity provider>" buttons go once the organization's single sign-on is
 * served (`GET /api/v1/auth/sso/{orgId}`, not on this branch): nothing is shown until then.
 */
function SingleSignOnOptions(_props: { organizationId: string }) {
  return null;
}

export function SignIn() {
  const { signIn, signInWithPassword, endedBecause } = useSession();
  const [method, setMethod] = useState<Method>("password");
  const [orgId, setOrgId] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (method === "password") await signInWithPassword(orgId.trim(), email.trim(), password);
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
