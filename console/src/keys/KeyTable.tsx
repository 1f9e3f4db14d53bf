// API keys as the console lists them (the organization's under Settings, a person's own under Your
// account): never a secret, the new one's shown once (with Copy), and revocation.
import type { components } from "../../../clients/typescript/api.generated";
import { CopyField } from "../components/CopyField";

export type ApiKeyView = components["schemas"]["ApiKey"];

export function KeyTable({ keys, onRevoke, caption }: { keys: ApiKeyView[]; onRevoke(k: ApiKeyView): void; caption: string }) {
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Role</th>
          <th scope="col">Key</th>
          <th scope="col">Status</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => (
          <tr key={k.id} data-key-name={k.name}>
            <td>
              {k.name}
              {k.owner_user_id && <div className="muted">personal key of a user</div>}
            </td>
            <td>{k.role}</td>
            <td>
              <code>{k.key_prefix}…</code>
            </td>
            <td>
              <span className={`badge ${k.status}`}>{k.status}</span>
            </td>
            <td>{k.last_used_at ? new Date(k.last_used_at).toLocaleString() : "never"}</td>
            <td>
              {k.status === "active" && (
                <button type="button" onClick={() => onRevoke(k)} aria-label={`Revoke ${k.name}`}>
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A key just created: its secret, this once. */
export function NewKeyShown({ name, secret, onDone }: { name: string; secret: string; onDone(): void }) {
  return (
    <div className="secret" role="status">
      <p>
        The key <strong>{name}</strong> was created. Copy it now: it is shown only this once.
      </p>
      <CopyField label="New API key" value={secret} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
