// Device integrations per platform with their status; a new one is created with credentials that
// are sent once and never shown again (the API returns them masked).
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import type { DeviceIntegration } from "./types";
import { TableHead } from "../components/TableHead";

const PLATFORMS = ["smart_ring", "recovery_strap", "sports_watch", "training_platform", "outdoor_watch", "activity_tracker", "ios_health_app", "android_health_app"];

export function Integrations() {
  const [offset, setOffset] = useState(0);
  const list = useApi<{ integrations: DeviceIntegration[]; total_count: number }>(withQuery("/api/v1/device-integrations", { limit: PAGE_SIZE, offset }));
  const [platform, setPlatform] = useState(PLATFORMS[0] ?? "");
  const [name, setName] = useState("");
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const create = useAction();

  function submit(e: FormEvent) {
    e.preventDefault();
    void create.run(async () => {
      await api("/api/v1/device-integrations", { method: "POST", body: { platform, name: name.trim(), credentials: { client_id: clientId, client_secret: clientSecret } } });
      setName("");
      setClientId("");
      setClientSecret("");
      list.reload();
    });
  }

  return (
    <section aria-labelledby="integrations-h">
      <h2 id="integrations-h">Integrations</h2>
      <form className="inline-form" onSubmit={submit} aria-label="New integration">
        <label>
          Platform
          <select value={platform} onChange={(e) => setPlatform(e.target.value)}>
            {PLATFORMS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          Name
          <input name="integration_name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
        <label>
          Client id
          <input name="client_id" value={clientId} onChange={(e) => setClientId(e.target.value)} required autoComplete="off" />
        </label>
        <label>
          Client secret
          <input name="client_secret" type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} required autoComplete="new-password" />
        </label>
        <button type="submit" disabled={create.busy}>
          Add integration
        </button>
      </form>
      {create.failure && <ErrorMessage error={create.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="integrations" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No device integrations">
          <p>Add one above with the client id and secret from the platform's developer portal; then link patients' devices.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Device integrations</caption>
            <TableHead columns={["Name", "Platform", "Status", "Client id", "Created"]} />
            <tbody>
              {list.data.integrations.map((i) => (
                <tr key={i.id}>
                  <td>{i.name}</td>
                  <td>{i.platform}</td>
                  <td>
                    <span className={`badge ${i.status.toLowerCase()}`}>{i.status}</span>
                  </td>
                  <td>
                    <code>{i.credentials.client_id ?? "—"}</code>
                  </td>
                  <td>{new Date(i.created_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Integrations" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </section>
  );
}
