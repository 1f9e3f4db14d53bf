// Settings → API keys: the organization's keys (never their secrets), a new key shown exactly
// once after creation, and revocation. Administrators only; the API enforces it too.
import { type FormEvent, useState } from "react";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { type ApiKeyView, KeyTable, NewKeyShown } from "../keys/KeyTable";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";

type ApiKey = ApiKeyView;

export function ApiKeys() {
  const [offset, setOffset] = useState(0);
  const keys = useApi<{ api_keys: ApiKey[]; total_count: number }>(withQuery("/api/api-keys", { limit: PAGE_SIZE, offset }));
  const [name, setName] = useState("");
  const [role, setRole] = useState<ApiKey["role"]>("clinician");
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [failure, setFailure] = useState<ApiFailure>();

  async function create(e: FormEvent) {
    e.preventDefault();
    setFailure(undefined);
    try {
      const k = await api<ApiKey & { key: string }>("/api/api-keys", { method: "POST", body: { name: name.trim(), role } });
      setCreated({ name: k.name, key: k.key });
      setName("");
      keys.reload();
    } catch (err) {
      if (err instanceof ApiFailure) setFailure(err);
      else throw err;
    }
  }

  async function revoke(k: ApiKey) {
    if (!window.confirm(`Revoke the key "${k.name}"? Anything using it stops working at once.`)) return;
    setFailure(undefined);
    try {
      await api(`/api/api-keys/${encodeURIComponent(k.id)}`, { method: "DELETE" });
      keys.reload();
    } catch (err) {
      if (err instanceof ApiFailure) setFailure(err);
      else throw err;
    }
  }

  return (
    <>
      <h1>API keys</h1>
      <form className="inline-form" onSubmit={(e) => void create(e)}>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as ApiKey["role"])}>
            <option value="admin">Administrator</option>
            <option value="clinician">Clinician</option>
            <option value="integration_engineer">Integration engineer</option>
            <option value="auditor">Auditor (read-only)</option>
            <option value="service">Service (systems)</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      {created && (
        <NewKeyShown name={created.name} secret={created.key} onDone={() => setCreated(undefined)} />
      )}
      {failure && <ErrorMessage error={failure} />}
      {keys.error && <ErrorMessage error={keys.error} />}
      {keys.loading && !keys.data && <Loading what="API keys" />}
      {keys.data && keys.data.total_count === 0 && (
        <EmptyState title="No API keys">
          <p>Create a key above for a system or a colleague.</p>
        </EmptyState>
      )}
      {keys.data && keys.data.total_count > 0 && (
        <>
          <KeyTable keys={keys.data.api_keys} onRevoke={(k) => void revoke(k)} caption="API keys" />
          <Pager label="API keys" offset={offset} total={keys.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
