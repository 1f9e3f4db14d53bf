// Settings → Applications: the organization's SMART Backend Services clients (paged), registered
// with a name, system/ scopes and a pasted JWK Set of public keys, each checked as it is typed by
// the service's own rules; their scopes edited, disabled/enabled and deleted. Above them, what a
// client is configured with: the organization's token endpoint and JWKS URL (from its SMART
// configuration), to copy. Administrators only; the API enforces it too.
import { type FormEvent, useState } from "react";
import { CopyField } from "../components/CopyField";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { when } from "../destinations/format";
import { badScopes, checkJwks, keysSummary, parseScopes } from "../identity/client-checks";
import type { ClientApplication } from "../identity/types";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { fhirBase } from "../patients/fhir";

interface SmartConfiguration {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
}

const JWKS_EXAMPLE = '{"keys": [{"kty": "EC", "crv": "P-384", "x": "…", "y": "…", "kid": "…", "alg": "ES384"}]}';

/** What is wrong with the scopes typed, or undefined. */
function scopesProblem(text: string): string | undefined {
  const scopes = parseScopes(text);
  if (scopes.length === 0) return "Name at least one scope";
  const bad = badScopes(scopes);
  return bad.length ? `Not system/ SMART scopes: ${bad.join(", ")} (system/<Type or *>.<read, write, * or c r u d s>)` : undefined;
}

export function Applications() {
  const { session } = useSession();
  const orgId = session?.organization.id ?? "";
  const [offset, setOffset] = useState(0);
  const list = useApi<{ client_applications: ClientApplication[]; total_count: number }>(withQuery("/api/v1/client-applications", { limit: PAGE_SIZE, offset }));
  const smart = useApi<SmartConfiguration>(`${fhirBase(orgId)}/.well-known/smart-configuration`);
  const [draft, setDraft] = useState({ name: "", scopes: "system/Patient.rs", jwks: "" });
  const [registered, setRegistered] = useState<ClientApplication>();
  const [editing, setEditing] = useState<{ id: string; text: string }>();
  const act = useAction();

  const jwks = draft.jwks.trim() ? checkJwks(draft.jwks) : undefined;
  const scopeProblem = scopesProblem(draft.scopes);
  const editProblem = editing ? scopesProblem(editing.text) : undefined;

  function register(e: FormEvent) {
    e.preventDefault();
    if (!jwks?.ok || scopeProblem) return;
    void act.run(async () => {
      const c = await api<ClientApplication>("/api/v1/client-applications", { method: "POST", body: { name: draft.name.trim(), scopes: parseScopes(draft.scopes), jwks: jwks.jwks } });
      setRegistered(c);
      setDraft({ name: "", scopes: "system/Patient.rs", jwks: "" });
      setOffset(0);
      list.reload();
    });
  }

  function change(c: ClientApplication, body: { scopes?: string[]; status?: "active" | "disabled" }) {
    void act.run(async () => {
      await api(`/api/v1/client-applications/${encodeURIComponent(c.id)}`, { method: "PATCH", body });
      setEditing(undefined);
      list.reload();
    });
  }

  function remove(c: ClientApplication) {
    if (!window.confirm(`Delete the application "${c.name}"? It gets no new tokens; those issued run out within 5 minutes.`)) return;
    void act.run(async () => {
      await api(`/api/v1/client-applications/${encodeURIComponent(c.id)}`, { method: "DELETE" });
      if (registered?.id === c.id) setRegistered(undefined);
      list.reload();
    });
  }

  return (
    <>
      <h1>Applications</h1>
      <p>Systems that call the FHIR API with SMART Backend Services: each signs a short assertion with a private key it keeps, and the token endpoint answers an access token for the scopes registered here.</p>
      <section className="endpoints" aria-label="This organization's SMART endpoints">
        {smart.error && <ErrorMessage error={smart.error} />}
        {smart.data && (
          <>
            <CopyField label="Token endpoint" value={smart.data.token_endpoint} />
            <CopyField label="JWKS URL" value={smart.data.jwks_uri} />
            <CopyField label="FHIR base URL" value={smart.data.issuer} />
          </>
        )}
      </section>

      <h2>Register an application</h2>
      <form className="client-form" onSubmit={register} aria-label="Register an application">
        <label>
          Name
          <input name="name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required maxLength={200} />
        </label>
        <label>
          Scopes <span className="muted">(one per line or separated by spaces)</span>
          <textarea name="scopes" rows={3} value={draft.scopes} onChange={(e) => setDraft({ ...draft, scopes: e.target.value })} aria-invalid={scopeProblem !== undefined} aria-describedby="scopes-check" required />
        </label>
        <p id="scopes-check" className={`validity ${scopeProblem ? "invalid" : "valid"}`} aria-live="polite">
          {scopeProblem ?? `${parseScopes(draft.scopes).length} scope(s)`}
        </p>
        <label>
          Public keys (JWK Set) <span className="muted">(RSA keys for RS384 or EC P-384 keys for ES384; never a private key)</span>
          <textarea name="jwks" rows={8} value={draft.jwks} placeholder={JWKS_EXAMPLE} onChange={(e) => setDraft({ ...draft, jwks: e.target.value })} aria-invalid={jwks !== undefined && !jwks.ok} aria-describedby="jwks-check" required spellCheck={false} />
        </label>
        <p id="jwks-check" data-jwks-check={jwks === undefined ? "empty" : jwks.ok ? "valid" : "invalid"} className={`validity ${jwks && !jwks.ok ? "invalid" : "valid"}`} aria-live="polite">
          {jwks === undefined ? <span className="muted">Paste the client's public JWK Set.</span> : jwks.ok ? `Usable: ${jwks.summary}` : jwks.problem}
        </p>
        <p>
          <button type="submit" disabled={act.busy || !jwks?.ok || scopeProblem !== undefined}>
            Register
          </button>
        </p>
      </form>
      {registered && (
        <div className="secret" role="status">
          <p>
            <strong>{registered.name}</strong> is registered. Its client_id (the iss and sub of its assertions) is <code data-client-id>{registered.id}</code>.
          </p>
          <button type="button" onClick={() => setRegistered(undefined)}>
            Done
          </button>
        </div>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}

      <h2>Registered applications</h2>
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="applications" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No applications yet">
          <p>Register a backend system above with its public keys and the scopes it may be granted.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table className="applications">
            <caption className="visually-hidden">Client applications</caption>
            <TableHead columns={["Name", "client_id", "Scopes", "Keys", "Status", "Registered"]} actions />
            <tbody>
              {list.data.client_applications.map((c) => (
                <tr key={c.id} data-client-id={c.id}>
                  <td>{c.name}</td>
                  <td className="wrap">
                    <code>{c.id}</code>
                  </td>
                  <td>
                    {editing?.id === c.id ? (
                      <form
                        className="scope-edit"
                        aria-label={`Scopes of ${c.name}`}
                        onSubmit={(e) => {
                          e.preventDefault();
                          if (!editProblem) change(c, { scopes: parseScopes(editing.text) });
                        }}
                      >
                        <textarea aria-label={`Scopes of ${c.name}`} rows={3} value={editing.text} onChange={(e) => setEditing({ id: c.id, text: e.target.value })} aria-invalid={editProblem !== undefined} />
                        {editProblem && <p className="validity invalid">{editProblem}</p>}
                        <button type="submit" disabled={act.busy || editProblem !== undefined}>
                          Save scopes
                        </button>{" "}
                        <button type="button" onClick={() => setEditing(undefined)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <ul className="scopes">
                        {c.scopes.map((s) => (
                          <li key={s}>
                            <code>{s}</code>
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td className="wrap">{c.jwks ? keysSummary(c.jwks.keys) : c.jwks_url ? <code>{c.jwks_url}</code> : "—"}</td>
                  <td>
                    <span className={`badge ${c.status}`}>{c.status}</span>
                  </td>
                  <td>{when(c.created_at)}</td>
                  <td className="row-actions">
                    {editing?.id !== c.id && (
                      <button type="button" onClick={() => setEditing({ id: c.id, text: c.scopes.join("\n") })}>
                        Edit scopes<span className="visually-hidden"> of {c.name}</span>
                      </button>
                    )}
                    <button type="button" disabled={act.busy} onClick={() => change(c, { status: c.status === "active" ? "disabled" : "active" })}>
                      {c.status === "active" ? "Disable" : "Enable"}
                      <span className="visually-hidden"> {c.name}</span>
                    </button>
                    <button type="button" disabled={act.busy} onClick={() => remove(c)}>
                      Delete<span className="visually-hidden"> {c.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Applications" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
