// Settings → Users: the organization's people (name, email, role, status, last sign-in; paged),
// an invitation whose link is shown exactly once, a role change and disable/enable. Administrators
// only; the API enforces it too. The signed-in user's own row offers no change, so nobody locks
// themselves out by a slip.
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { when } from "../destinations/format";
import { invitationLink } from "../identity/invitation-link";
import { roleLabel, USER_ROLES, type User, type UserInvitation } from "../identity/types";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

const lockedNow = (u: User) => u.locked_until !== null && Date.parse(u.locked_until) > Date.now();

export function Users() {
  const { session } = useSession();
  const [offset, setOffset] = useState(0);
  const list = useApi<{ users: User[]; total_count: number }>(withQuery("/api/v1/users", { limit: PAGE_SIZE, offset }));
  const [draft, setDraft] = useState<{ email: string; name: string; role: User["role"] }>({ email: "", name: "", role: "clinician" });
  const [invited, setInvited] = useState<{ email: string; link: string; token: string; expires: string }>();
  const act = useAction();
  const orgId = session?.organization.id ?? "";

  function invite(e: FormEvent) {
    e.preventDefault();
    void act.run(async () => {
      const u = await api<UserInvitation>("/api/v1/users/invitations", { method: "POST", body: { email: draft.email.trim(), name: draft.name.trim(), role: draft.role } });
      setInvited({ email: u.email, token: u.invitation.token, link: invitationLink(window.location.origin, orgId, u.invitation.token), expires: u.invitation.expires_at });
      setDraft({ ...draft, email: "", name: "" });
      setOffset(0);
      list.reload();
    });
  }

  function update(u: User, body: { role?: User["role"]; status?: "active" | "disabled"; unlock?: true }, question: string) {
    if (!window.confirm(question)) return;
    void act.run(async () => {
      await api(`/api/v1/users/${encodeURIComponent(u.id)}`, { method: "PATCH", body });
      list.reload();
    });
  }

  function resetTotp(u: User) {
    if (!window.confirm(`Reset two-factor sign-in for ${u.name}? Their password alone signs them in until they set it up again (for a lost phone).`)) return;
    void act.run(async () => {
      await api(`/api/v1/users/${encodeURIComponent(u.id)}/totp`, { method: "DELETE" });
      list.reload();
    });
  }

  return (
    <>
      <h1>Users</h1>
      <form className="inline-form" onSubmit={invite} aria-label="Invite a user">
        <label>
          Email
          <input name="email" type="email" value={draft.email} onChange={(e) => setDraft({ ...draft, email: e.target.value })} required maxLength={254} />
        </label>
        <label>
          Name
          <input name="name" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} required maxLength={200} />
        </label>
        <label>
          Role
          <select name="role" value={draft.role} onChange={(e) => setDraft({ ...draft, role: e.target.value as User["role"] })}>
            {USER_ROLES.map((r) => (
              <option key={r.role} value={r.role}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={act.busy}>
          Invite
        </button>
      </form>
      {invited && (
        <div className="secret" role="status">
          <p>
            <strong>{invited.email}</strong> is invited. Send them this link: it is shown only this once and works once, until {when(invited.expires)}.
          </p>
          <input className="secret-value" aria-label="Invitation link" readOnly value={invited.link} onFocus={(e) => e.target.select()} />
          <p className="muted">
            The token alone, for a client that builds its own link: <code data-invitation-token>{invited.token}</code>
          </p>
          <button type="button" onClick={() => setInvited(undefined)}>
            Done
          </button>
        </div>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="users" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No users yet">
          <p>Invite the people who use the console above: each gets a link to choose a password, then signs in with their email.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table className="users">
            <caption className="visually-hidden">Users</caption>
            <TableHead columns={["Name", "Email", "Role", "Status", "Last sign-in"]} actions />
            <tbody>
              {list.data.users.map((u) => {
                const self = session?.user?.id === u.id;
                return (
                  <tr key={u.id} data-user-email={u.email} data-user-status={u.status}>
                    <td>
                      {u.name}
                      {self && <span className="muted"> (you)</span>}
                    </td>
                    <td className="wrap">{u.email}</td>
                    <td>
                      {self ? (
                        roleLabel(u.role)
                      ) : (
                        <select aria-label={`Role of ${u.name}`} value={u.role} disabled={act.busy} onChange={(e) => update(u, { role: e.target.value as User["role"] }, `Make ${u.name} ${roleLabel(e.target.value as User["role"])}? It applies at once, to their open sessions too.`)}>
                          {USER_ROLES.map((r) => (
                            <option key={r.role} value={r.role}>
                              {r.label}
                            </option>
                          ))}
                          {!USER_ROLES.some((r) => r.role === u.role) && <option value={u.role}>{roleLabel(u.role)}</option>}
                        </select>
                      )}
                    </td>
                    <td>
                      <span className={`badge ${u.status}`}>{u.status}</span>
                      {u.status === "invited" && <div className="muted">has not accepted yet</div>}
                      {lockedNow(u) && <div className="failure-line">sign-in locked until {when(u.locked_until)}</div>}
                      {u.totp_enabled && <div className="muted">two-factor sign-in on</div>}
                    </td>
                    <td>{u.last_sign_in_at ? when(u.last_sign_in_at) : "never"}</td>
                    <td>
                      {!self && u.status === "active" && (
                        <button type="button" disabled={act.busy} onClick={() => update(u, { status: "disabled" }, `Disable ${u.name}? Their sessions stop at once and they cannot sign in.`)}>
                          Disable {u.name}
                        </button>
                      )}
                      {!self && lockedNow(u) && (
                        <button type="button" data-action="unlock" disabled={act.busy} onClick={() => update(u, { unlock: true }, `Unlock ${u.name}? Their failed sign-ins are forgotten and they may sign in at once.`)}>
                          Unlock {u.name}
                        </button>
                      )}
                      {!self && u.totp_enabled && (
                        <button type="button" data-action="reset-totp" disabled={act.busy} onClick={() => resetTotp(u)}>
                          Reset two-factor for {u.name}
                        </button>
                      )}
                      {!self && u.status === "disabled" && (
                        <button type="button" disabled={act.busy} onClick={() => update(u, { status: "active" }, `Enable ${u.name} again?`)}>
                          Enable {u.name}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager label="Users" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
