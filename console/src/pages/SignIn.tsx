// Sign-in: organization id and API key, exchanged once for a session cookie. The key field is
// cleared as soon as the exchange answers; nothing is written to storage.
import { type FormEvent, useState } from "react";
import { ApiFailure } from "../lib/api";
import { useSession } from "../lib/session";

export function SignIn() {
  const { signIn, endedBecause } = useSession();
  const [orgId, setOrgId] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(orgId.trim(), apiKey.trim());
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : String(err));
    } finally {
      setApiKey("");
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <h1>Sign in to the console</h1>
      {endedBecause && !error && (
        <p className="notice" role="status">
          {endedBecause}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)}>
        <label>
          Organization id
          <input name="organization" value={orgId} onChange={(e) => setOrgId(e.target.value)} required autoComplete="organization" />
        </label>
        <label>
          API key
          <input name="api_key" type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} required autoComplete="off" />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p className="muted">An administrator creates API keys under Settings → API keys. The key is exchanged for a session and never stored in this browser.</p>
    </main>
  );
}
