// Accepting an invitation (`/accept-invitation#org=…&token=…`, the link an administrator sent):
// the person chooses a password (and, if they like, the name they go by), the service activates
// them, and the console signs them in with that password. Reached without a session; the token
// and the password are sent once and cleared, nothing is stored in the browser.
import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import { readInvitation } from "../identity/invitation-link";
import type { User } from "../identity/types";
import { ApiFailure, api } from "../lib/api";
import { signedInAs, useSession } from "../lib/session";
import { signInRefusal } from "./SignIn";

/** The API's MIN_PASSWORD_LENGTH (src/features/identity/password.ts); the API checks it regardless. */
const MIN_PASSWORD_LENGTH = 12;

export function AcceptInvitation() {
  const { session, signInWithPassword } = useSession();
  const [, navigate] = useLocation();
  const [link] = useState(() => readInvitation(window.location.hash));
  const [orgId, setOrgId] = useState(link.organizationId);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<string>();
  const [accepted, setAccepted] = useState<User>();
  const [busy, setBusy] = useState(false);
  const mismatch = repeat !== "" && repeat !== password;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (password !== repeat) return;
    setBusy(true);
    setError(undefined);
    let user = accepted;
    try {
      user ??= await api<User>("/api/v1/auth/invitations/accept", { method: "POST", body: { token: link.token, password, ...(name.trim() ? { name: name.trim() } : {}) }, quiet401: true });
      setAccepted(user);
      await signInWithPassword(orgId.trim(), user.email, password);
      // Signed in: the overview, with the token gone from the address bar and the history.
      navigate("/", { replace: true });
    } catch (err) {
      setError(user ? `Your account is active, but signing in failed: ${signInRefusal(err, "password")} Sign in from the sign-in page.` : err instanceof ApiFailure ? err.message : String(err));
    } finally {
      setPassword("");
      setRepeat("");
      setBusy(false);
    }
  }

  if (!link.token) {
    return (
      <main className="signin">
        <h1>Accept an invitation</h1>
        <div className="error" role="alert">
          <strong>This link has no invitation token</strong>
          <p>Open the whole link your administrator sent, or ask them for a new invitation.</p>
        </div>
      </main>
    );
  }

  return (
    <main className="signin">
      <h1>Accept an invitation</h1>
      {session && (
        <p className="notice" role="status">
          You are signed in as {signedInAs(session)}. Accepting signs you in as the invited person instead.
        </p>
      )}
      {accepted ? (
        <p className="notice">Your account {accepted.email} is active.</p>
      ) : (
        <p>Choose the password you will sign in with (at least {MIN_PASSWORD_LENGTH} characters). The invitation can be used once, within 7 days of being sent.</p>
      )}
      <form onSubmit={(e) => void submit(e)} aria-label="Accept the invitation">
        <label>
          Organization id
          <input name="organization" value={orgId} onChange={(e) => setOrgId(e.target.value)} required readOnly={link.organizationId !== ""} autoComplete="organization" />
        </label>
        {!accepted && (
          <label>
            Your name <span className="muted">(optional: leave empty to keep the name you were invited with)</span>
            <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoComplete="name" />
          </label>
        )}
        <label>
          Password
          <input name="password" type="password" value={password} onChange={(e) => setPassword(e.target.value)} required minLength={MIN_PASSWORD_LENGTH} maxLength={1024} autoComplete="new-password" />
        </label>
        <label>
          Repeat the password
          <input name="password_repeat" type="password" value={repeat} onChange={(e) => setRepeat(e.target.value)} required autoComplete="new-password" aria-invalid={mismatch} aria-describedby={mismatch ? "password-mismatch" : undefined} />
        </label>
        {mismatch && (
          <p id="password-mismatch" className="validity invalid">
            The two passwords differ.
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || mismatch}>
          {busy ? "Setting up…" : accepted ? "Sign in" : "Accept and sign in"}
        </button>
      </form>
    </main>
  );
}
