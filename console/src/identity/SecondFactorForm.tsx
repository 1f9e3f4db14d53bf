// The second step of a password sign-in for a user with two-factor sign-in on: the six digits the
// authenticator app shows, or one of the recovery codes. A wrong code counts as a failed sign-in
// (the account locks after five, as for passwords); an expired step goes back to the password.
import { type FormEvent, useState } from "react";
import { ApiFailure } from "../lib/api";
import { lockedWords } from "./locked-words";
import { type SecondFactorChallenge, useSession } from "../lib/session";

/** The words for a refused code. */
function codeRefusal(err: unknown): string {
  if (!(err instanceof ApiFailure)) return String(err);
  if (err.retryAfterSeconds) return lockedWords(err.retryAfterSeconds);
  if (err.code === "INVALID_TOTP_CODE") return "That code is not right, or was already used. Enter the code your app shows now (a new one comes every 30 seconds).";
  return err.message;
}

export function SecondFactorForm({ organizationId, challenge, onExpired }: { organizationId: string; challenge: SecondFactorChallenge; onExpired(why: string): void }) {
  const { completeSecondFactor } = useSession();
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await completeSecondFactor(organizationId, challenge.challenge, recovery ? { recovery_code: value.trim() } : { code: value.replace(/\s/g, "") });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "SIGN_IN_EXPIRED") onExpired("The sign-in took too long (or was completed elsewhere): enter your password again.");
      else setError(codeRefusal(err));
    } finally {
      setValue("");
      setBusy(false);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Two-factor sign-in">
      <p>{recovery ? "Enter one of your recovery codes. Each works once." : "Enter the 6-digit code from your authenticator app."}</p>
      {recovery ? (
        <label>
          Recovery code
          <input name="recovery_code" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="off" maxLength={20} />
        </label>
      ) : (
        <label>
          Code
          <input name="code" value={value} onChange={(e) => setValue(e.target.value)} required inputMode="numeric" autoComplete="one-time-code" pattern="\s*(\d\s*){6}" maxLength={9} />
        </label>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {busy ? "Checking…" : "Sign in"}
      </button>
      <p>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setRecovery(!recovery);
            setValue("");
            setError(undefined);
          }}
        >
          {recovery ? "Use a code from the app" : "Use a recovery code"}
        </button>
      </p>
    </form>
  );
}
