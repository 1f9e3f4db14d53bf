// Settings → Connectors: the organization's outbound connections (list paged, create, delete,
// test). Credentials are write-only: typed once, sent to the API, shown back only masked.
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { TableHead } from "../components/TableHead";

interface Connector {
  id: string;
  name: string;
  type: string;
  endpoint: string;
  auth: Record<string, string>;
  credentials: Record<string, string>;
  created_at: string;
}
interface ConnectorType {
  type: string;
  name: string;
  auth_kinds: string[];
}

const CREDENTIAL_FIELDS: Record<string, string[]> = { none: [], bearer: ["token"], basic: ["username", "password"], header: ["value"], oauth2_client_credentials: ["client_id", "client_secret"] };

export function Connectors() {
  const [offset, setOffset] = useState(0);
  const list = useApi<{ connectors: Connector[]; total_count: number }>(withQuery("/api/connectors", { limit: PAGE_SIZE, offset }));
  const types = useApi<{ types: ConnectorType[] }>("/api/connectors/types");
  const [draft, setDraft] = useState({ name: "", type: "", endpoint: "", kind: "bearer" });
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const [tested, setTested] = useState<string>();
  const act = useAction();
  const type = draft.type || types.data?.types[0]?.type || "";
  const kinds = types.data?.types.find((t) => t.type === type)?.auth_kinds ?? ["none"];
  const kind = kinds.includes(draft.kind) ? draft.kind : (kinds[0] ?? "none");

  function create(e: FormEvent) {
    e.preventDefault();
    void act.run(async () => {
      const credentials = Object.fromEntries((CREDENTIAL_FIELDS[kind] ?? []).map((f) => [f, secrets[f] ?? ""]));
      await api("/api/connectors", { method: "POST", body: { name: draft.name.trim(), type, endpoint: draft.endpoint.trim(), auth: { kind }, ...(Object.keys(credentials).length ? { credentials } : {}) } });
      setDraft({ ...draft, name: "", endpoint: "" });
      setSecrets({});
      list.reload();
    });
  }

  function remove(c: Connector) {
    if (!window.confirm(`Delete the connector "${c.name}"?`)) return;
    void act.run(async () => {
      await api(`/api/connectors/${encodeURIComponent(c.id)}`, { method: "DELETE" });
      list.reload();
    });
  }

  function test(c: Connector) {
    setTested(undefined);
    void act.run(async () => {
      const r = await api<{ ok?: boolean; status?: number; message?: string }>(`/api/connectors/${encodeURIComponent(c.id)}/test`, { method: "POST", body: {} });
      setTested(`${c.name}: ${r.ok ? "reachable" : "not reachable"}${r.status ? ` (HTTP ${r.status})` : ""}${r.message ? ` — ${r.message}` : ""}`);
    });
  }

  return (
    <>
      <h1>Connectors</h1>
      {types.error && <ErrorMessage error={types.error} />}
      <form className="inline-form" onSubmit={create} aria-label="New connector">
        <label>
          Name
          <input name="name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required maxLength={200} />
        </label>
        <label>
          Type
          <select name="type" value={type} onChange={(e) => setDraft({ ...draft, type: e.target.value })}>
            {(types.data?.types ?? []).map((t) => (
              <option key={t.type} value={t.type}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Endpoint
          <input name="endpoint" value={draft.endpoint} onChange={(e) => setDraft({ ...draft, endpoint: e.target.value })} required placeholder="https://…" />
        </label>
        <label>
          Authentication
          <select name="auth_kind" value={kind} onChange={(e) => setDraft({ ...draft, kind: e.target.value })}>
            {kinds.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        {(CREDENTIAL_FIELDS[kind] ?? []).map((f) => (
          <label key={f}>
            {f.replace("_", " ")}
            <input name={f} type={f === "client_id" || f === "username" ? "text" : "password"} autoComplete="off" value={secrets[f] ?? ""} onChange={(e) => setSecrets({ ...secrets, [f]: e.target.value })} required />
          </label>
        ))}
        <button type="submit" disabled={act.busy}>
          Add connector
        </button>
      </form>
      <p className="muted">Credentials are write-only: after saving, the service shows them masked and never returns them.</p>
      {act.failure && <ErrorMessage error={act.failure} />}
      {tested && <p role="status">{tested}</p>}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="connectors" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No connectors">
          <p>Add one above for each system your pipelines send to (a FHIR server, an HTTP API, an MLLP listener).</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Connectors</caption>
            <TableHead columns={["Name", "Type", "Endpoint", "Credentials"]} actions />
            <tbody>
              {list.data.connectors.map((c) => (
                <tr key={c.id}>
                  <td>{c.name}</td>
                  <td>{c.type}</td>
                  <td>
                    <code>{c.endpoint}</code>
                  </td>
                  <td>
                    {Object.entries(c.credentials)
                      .map(([k, v]) => `${k}: ${v}`)
                      .join(", ") || "none"}
                  </td>
                  <td>
                    <button type="button" onClick={() => test(c)}>
                      Test {c.name}
                    </button>{" "}
                    <button type="button" onClick={() => remove(c)}>
                      Delete {c.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Connectors" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
