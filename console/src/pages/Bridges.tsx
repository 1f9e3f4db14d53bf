// Settings → Bridges: the organization's on-premises bridges, online or offline with when they
// were last seen (fetched again every few seconds), and for administrators: register (the
// credential is shown once, with a copy button), rotate the credential, delete.
import { type FormEvent, useEffect, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { when } from "../destinations/format";
import type { Bridge, BridgeWithCredential } from "../destinations/types";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

const POLL_MS = 5000;

export function Bridges() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const list = useApi<{ bridges: Bridge[]; total_count: number }>(withQuery("/api/v1/bridges", { limit: PAGE_SIZE, offset }));
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [shown, setShown] = useState<{ name: string; credential: string; why: string }>();
  const [copied, setCopied] = useState(false);
  const act = useAction();
  const manage = can("connectors:manage");
  const { loading, reload } = list;

  useEffect(() => {
    if (loading) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [loading, reload]);

  const show = (b: BridgeWithCredential, why: string) => {
    setCopied(false);
    setShown({ name: b.name, credential: b.credential, why });
  };

  function register(e: FormEvent) {
    e.preventDefault();
    void act.run(async () => {
      const b = await api<BridgeWithCredential>("/api/v1/bridges", { method: "POST", body: { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) } });
      show(b, "registered");
      setName("");
      setDescription("");
      reload();
    });
  }

  function rotate(b: Bridge) {
    if (!window.confirm(`Replace the credential of "${b.name}"? The old one stops working and the bridge is disconnected until it uses the new one.`)) return;
    void act.run(async () => {
      show(await api<BridgeWithCredential>(`/api/v1/bridges/${encodeURIComponent(b.id)}/rotate-credential`, { method: "POST" }), "given a new credential");
      reload();
    });
  }

  function remove(b: Bridge) {
    if (!window.confirm(`Delete the bridge "${b.name}"? Its connection is closed and its credential stops working; destinations through it fail until changed.`)) return;
    void act.run(async () => {
      await api(`/api/v1/bridges/${encodeURIComponent(b.id)}`, { method: "DELETE" });
      reload();
    });
  }

  async function copy() {
    if (!shown) return;
    try {
      await navigator.clipboard.writeText(shown.credential);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <>
      <h1>Bridges</h1>
      <p className="muted">An on-premises bridge keeps one outbound connection to the service and delivers destinations marked "through a bridge" to systems on the hospital network. Refreshed every {POLL_MS / 1000} s.</p>
      {manage && (
        <form className="inline-form" onSubmit={register} aria-label="Register a bridge">
          <label>
            Name
            <input name="bridge_name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </label>
          <label>
            Description
            <input name="bridge_description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
          </label>
          <button type="submit" disabled={act.busy}>
            Register bridge
          </button>
        </form>
      )}
      {shown && (
        <div className="secret" role="status">
          <p>
            The bridge <strong>{shown.name}</strong> was {shown.why}. Copy its credential now (the bridge's BRIDGE_CREDENTIAL): it is shown only this once.
          </p>
          <input className="secret-value" aria-label="Bridge credential" readOnly value={shown.credential} onFocus={(e) => e.target.select()} />
          <button type="button" onClick={() => void copy()}>
            {copied ? "Copied" : "Copy"}
          </button>{" "}
          <button type="button" onClick={() => setShown(undefined)}>
            Done
          </button>
        </div>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {!list.data && !list.error && <Loading what="bridges" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No bridges registered">
          <p>{manage ? "Register one above, then start the bridge with its credential (bridge/README.md)." : "An administrator registers bridges."}</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table className="bridges">
            <caption className="visually-hidden">Bridges</caption>
            <TableHead columns={["Name", "Status", "Last seen", "Connected since", "Version, host", "Credential"]} actions={manage} />
            <tbody>
              {list.data.bridges.map((b) => (
                <tr key={b.id} data-bridge-id={b.id}>
                  <td>
                    {b.name}
                    {b.description && <div className="muted">{b.description}</div>}
                  </td>
                  <td>
                    <span className={`badge ${b.status}`} data-bridge-status={b.status}>
                      {b.status}
                    </span>
                  </td>
                  <td>{b.last_seen_at ? when(b.last_seen_at) : "never"}</td>
                  <td>{when(b.connected_since)}</td>
                  <td>{[b.version, b.host].filter(Boolean).join(", ") || "—"}</td>
                  <td>
                    <code>{b.credential_prefix}…</code>
                    {b.credential_rotated_at && <div className="muted">rotated {when(b.credential_rotated_at)}</div>}
                  </td>
                  {manage && (
                    <td>
                      <button type="button" disabled={act.busy} onClick={() => rotate(b)} aria-label={`Rotate the credential of ${b.name}`}>
                        Rotate
                      </button>{" "}
                      <button type="button" disabled={act.busy} onClick={() => remove(b)} aria-label={`Delete ${b.name}`}>
                        Delete
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Bridges" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
