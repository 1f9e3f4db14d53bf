// Your account: two-factor sign-in with an authenticator app, and personal API keys. Setting it up shows the secret (as
// a QR code to scan, a key to type into the app, and the otpauth:// link the QR code carries), asks for a first
// code, then shows the ten recovery codes once. Turning it off or getting new recovery codes asks
// for a current code (or a recovery code), so a session left open cannot remove it.
import { type FormEvent, useState } from "react";
import type { components } from "../../../clients/typescript/api.generated";
import { CopyField } from "../components/CopyField";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { QrCode } from "../components/QrCode";
import { ErrorMessage, Loading } from "../components/States";
import { when } from "../destinations/format";
import { type ApiKeyView, KeyTable, NewKeyShown } from "../keys/KeyTable";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

type TotpStatus = components["schemas"]["TotpStatus"];
type Enrollment = components["schemas"]["TotpEnrollment"];

const proofOf = (value: string) => (/^\s*(\d\s*){6}$/.test(value) ? { code: value.replace(/\s/g, "") } : { recovery_code: value.trim() });

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone(): void }) {
  return (
    <section aria-label="Recovery codes" className="notice">
      <p>
        <strong>Save these recovery codes now.</strong> Each signs you in once if you lose your phone; they are not shown again.
      </p>
      <ul className="recovery-codes" data-recovery-codes>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <CopyField label="All recovery codes" value={codes.join(" ")} />
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </section>
  );
}

function TwoFactor() {
  const status = useApi<TotpStatus>("/api/v1/users/me/totp");
  const [enrollment, setEnrollment] = useState<Enrollment>();
  const [codes, setCodes] = useState<string[]>();
  const [value, setValue] = useState("");
  const act = useAction();

  const submit = (action: () => Promise<void>) => (e: { preventDefault(): void }) => {
    e.preventDefault();
    void act.run(async () => {
      try {
        await action();
      } finally {
        setValue("");
      }
    });
  };
  const start = () =>
    void act.run(async () => {
      setEnrollment(await api<Enrollment>("/api/v1/users/me/totp", { method: "POST" }));
    });
  const confirm = submit(async () => {
    const { recovery_codes } = await api<{ recovery_codes: string[] }>("/api/v1/users/me/totp/confirm", { method: "POST", body: { code: value.replace(/\s/g, "") } });
    setEnrollment(undefined);
    setCodes(recovery_codes);
    status.reload();
  });
  const renew = submit(async () => {
    const { recovery_codes } = await api<{ recovery_codes: string[] }>("/api/v1/users/me/totp/recovery-codes", { method: "POST", body: proofOf(value) });
    setCodes(recovery_codes);
    status.reload();
  });
  const disable = submit(async () => {
    await api("/api/v1/users/me/totp/disable", { method: "POST", body: proofOf(value) });
    status.reload();
  });

  if (status.error) return <ErrorMessage error={status.error} />;
  if (!status.data) return <Loading what="two-factor sign-in" />;
  const s = status.data;
  return (
    <section aria-labelledby="two-factor">
      <h2 id="two-factor">Two-factor sign-in</h2>
      {act.failure && <ErrorMessage error={act.failure} />}
      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(undefined)} />}
      {s.enabled ? (
        <>
          <p data-totp-state="on">
            On since {when(s.enabled_at)}: signing in with your password also asks for a code from your authenticator app. {s.recovery_codes_left} recovery code{s.recovery_codes_left === 1 ? "" : "s"} left.
          </p>
          <form className="inline-form" aria-label="Change two-factor sign-in" onSubmit={(e) => e.preventDefault()}>
            <label>
              Current code or a recovery code
              <input name="proof" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="one-time-code" maxLength={20} />
            </label>
            <button type="button" disabled={act.busy || !value.trim()} onClick={renew}>
              New recovery codes
            </button>
            <button type="button" disabled={act.busy || !value.trim()} onClick={disable}>
              Turn off
            </button>
          </form>
        </>
      ) : enrollment ? (
        <form aria-label="Set up two-factor sign-in" onSubmit={confirm}>
          <p>Add this account to your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password…): scan the QR code, enter the key by hand, or open the link on the phone. Then type the code the app shows.</p>
          <QrCode text={enrollment.otpauth_uri} label="QR code to scan with your authenticator app" />
          <CopyField label="Key" value={enrollment.secret} />
          <CopyField label="otpauth link" value={enrollment.otpauth_uri} />
          <label>
            Code from the app
            <input name="code" value={value} onChange={(e) => setValue(e.target.value)} required inputMode="numeric" autoComplete="one-time-code" pattern="\s*(\d\s*){6}" maxLength={9} />
          </label>
          <button type="submit" disabled={act.busy}>
            Turn on
          </button>
        </form>
      ) : (
        <>
          <p data-totp-state="off">Off: your password alone signs you in. With it on, a stolen password is not enough.</p>
          <button type="button" disabled={act.busy} onClick={start}>
            Set up two-factor sign-in
          </button>
        </>
      )}
    </section>
  );
}

/** The person's own API keys, for their scripts: each acts as them, with their role as it is. */
function PersonalKeys() {
  const [offset, setOffset] = useState(0);
  const keys = useApi<{ api_keys: ApiKeyView[]; total_count: number }>(withQuery("/api/v1/users/me/api-keys", { limit: PAGE_SIZE, offset }));
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const act = useAction();

  const create = (e: FormEvent) => {
    e.preventDefault();
    void act.run(async () => {
      const k = await api<ApiKeyView & { key: string }>("/api/v1/users/me/api-keys", { method: "POST", body: { name: name.trim() } });
      setCreated({ name: k.name, key: k.key });
      setName("");
      keys.reload();
    });
  };
  const revoke = (k: ApiKeyView) => {
    if (!window.confirm(`Revoke your key "${k.name}"? Anything using it stops working.`)) return;
    void act.run(async () => {
      await api(`/api/v1/users/me/api-keys/${encodeURIComponent(k.id)}`, { method: "DELETE" });
      keys.reload();
    });
  };

  return (
    <section aria-labelledby="personal-keys">
      <h2 id="personal-keys">Personal API keys</h2>
      <p>For your own scripts and tools: a key acts as you, with your role as it is at each request, and stops if your account is disabled.</p>
      <form className="inline-form" aria-label="Create a personal API key" onSubmit={create}>
        <label>
          Name
          <input name="key_name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
        <button type="submit" disabled={act.busy}>
          Create key
        </button>
      </form>
      {created && <NewKeyShown name={created.name} secret={created.key} onDone={() => setCreated(undefined)} />}
      {act.failure && <ErrorMessage error={act.failure} />}
      {keys.error && <ErrorMessage error={keys.error} />}
      {keys.data && keys.data.total_count === 0 && <p className="muted">You have no personal keys.</p>}
      {keys.data && keys.data.total_count > 0 && (
        <>
          <KeyTable keys={keys.data.api_keys} onRevoke={revoke} caption="Your personal API keys" />
          <Pager label="personal API keys" offset={offset} total={keys.data.total_count} onChange={setOffset} />
        </>
      )}
    </section>
  );
}

export function Account() {
  const { session } = useSession();
  if (!session) return null;
  return (
    <>
      <h1>Your account</h1>
      {session.user ? (
        <>
          <p>
            {session.user.name} ({session.user.email})
          </p>
          <TwoFactor />
          <PersonalKeys />
        </>
      ) : (
        <p>This session is an API key's: keys have no account or second factor. Sign in with your email and password to manage your own.</p>
      )}
    </>
  );
}
