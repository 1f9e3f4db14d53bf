// Settings → Access policies: the organization's policies (paged), each a name and its rules (the
// resource types reached, read-only, search criteria, a patient or Group compartment, hidden and
// read-only fields), written as the API's JSON and validated by the service as it saves (a bad
// rule is a 422 naming the rule and the problem, shown here). A policy's page lists who acts
// under it (keys, users, client applications), assigns it and takes it away. Administrators only
// (policies:manage); the API enforces it too. docs/fhir-store.md, "Access policies".
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { when } from "../destinations/format";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

interface Rule {
  resource_type: string;
  readonly?: boolean;
  criteria?: string;
  compartment?: { patient: string } | { group: string };
  hidden_fields?: string[];
  readonly_fields?: string[];
}

interface AccessPolicy {
  id: string;
  name: string;
  description: string | null;
  resources: Rule[];
  updated_at: string;
}

type AssigneeKind = "api-keys" | "users" | "client-applications";
interface Assignee {
  kind: AssigneeKind;
  id: string;
  name: string;
}

const KIND_LABELS: Record<AssigneeKind, string> = { "api-keys": "API key", users: "User", "client-applications": "Client application" };
const EXAMPLE_RULES = JSON.stringify([{ resource_type: "Patient", readonly: true, hidden_fields: ["Patient.telecom"] }, { resource_type: "Observation", criteria: "Observation?category=vital-signs" }], null, 2);

/** The rules typed, or what is wrong with them before the service is asked. */
export function parseRules(text: string): { rules: Rule[] } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `Not JSON: ${(e as Error).message}` };
  }
  if (!Array.isArray(value) || value.length === 0) return { problem: "The rules are a JSON array with at least one rule" };
  const bad = value.findIndex((r) => typeof r !== "object" || r === null || typeof (r as Rule).resource_type !== "string");
  return bad >= 0 ? { problem: `Rule ${bad + 1} has no resource_type` } : { rules: value as Rule[] };
}

const summary = (rules: Rule[]) =>
  rules.map((r) => `${r.resource_type}${r.readonly ? " (read-only)" : ""}${r.criteria ? ` where ${r.criteria.split("?")[1] ?? r.criteria}` : ""}${r.compartment ? ` in ${"patient" in r.compartment ? r.compartment.patient : r.compartment.group}` : ""}`).join("; ");

function PolicyForm({ initial, onSaved }: { initial?: AccessPolicy; onSaved: (p: AccessPolicy) => void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [rulesText, setRulesText] = useState(initial ? JSON.stringify(initial.resources, null, 2) : EXAMPLE_RULES);
  const act = useAction();
  const parsed = parseRules(rulesText);

  function save(e: FormEvent) {
    e.preventDefault();
    if ("problem" in parsed) return;
    void act.run(async () => {
      const body = { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}), resources: parsed.rules };
      const saved = initial
        ? await api<AccessPolicy>(`/api/v1/access-policies/${encodeURIComponent(initial.id)}`, { method: "PUT", body })
        : await api<AccessPolicy>("/api/v1/access-policies", { method: "POST", body });
      onSaved(saved);
    });
  }

  return (
    <form onSubmit={save} aria-label={initial ? "Edit the access policy" : "Create an access policy"}>
      <label>
        Name
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label>
        Description
        <input name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} />
      </label>
      <label>
        Rules (JSON: resource_type, readonly, criteria, compartment, hidden_fields, readonly_fields)
        <textarea name="rules" rows={10} spellCheck={false} value={rulesText} onChange={(e) => setRulesText(e.target.value)} aria-invalid={"problem" in parsed} />
      </label>
      {"problem" in parsed && (
        <p className="failure-line" data-rules-problem>
          {parsed.problem}
        </p>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
      <button type="submit" disabled={act.busy || "problem" in parsed}>
        {initial ? "Save" : "Create"}
      </button>
    </form>
  );
}

/** Who acts under the policy, and assigning it to one more. */
function Assignments({ policy }: { policy: AccessPolicy }) {
  const detail = useApi<{ assigned_to: Assignee[] }>(`/api/v1/access-policies/${encodeURIComponent(policy.id)}`);
  const [kind, setKind] = useState<AssigneeKind>("api-keys");
  const candidates = useApi<Record<string, { id: string; name: string }[]>>(kind === "api-keys" ? "/api/api-keys?limit=100" : kind === "users" ? "/api/v1/users?limit=100" : "/api/v1/client-applications?limit=100");
  const [chosen, setChosen] = useState("");
  const act = useAction();
  const list = candidates.data ? (Object.values(candidates.data).find(Array.isArray) ?? []) : [];

  function change(method: "PUT" | "DELETE", k: AssigneeKind, id: string) {
    void act.run(async () => {
      await api(`/api/v1/access-policies/${encodeURIComponent(policy.id)}/assignments/${k}/${encodeURIComponent(id)}`, { method });
      setChosen("");
      detail.reload();
    });
  }

  return (
    <section aria-label="Assigned to">
      <h2>Assigned to</h2>
      {detail.data?.assigned_to.length === 0 && <p className="muted">Nobody acts under this policy yet.</p>}
      <ul>
        {detail.data?.assigned_to.map((a) => (
          <li key={`${a.kind}/${a.id}`} data-assignee={`${a.kind}/${a.id}`}>
            {KIND_LABELS[a.kind]} <strong>{a.name}</strong>{" "}
            <button type="button" disabled={act.busy} onClick={() => change("DELETE", a.kind, a.id)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        className="inline-form"
        aria-label="Assign the policy"
        onSubmit={(e) => {
          e.preventDefault();
          if (chosen) change("PUT", kind, chosen);
        }}
      >
        <label>
          To
          <select name="assignee-kind" value={kind} onChange={(e) => {
              setKind(e.target.value as AssigneeKind);
              setChosen("");
            }}>
            {(Object.keys(KIND_LABELS) as AssigneeKind[]).map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Which
          <select name="assignee" value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose…</option>
            {list.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={act.busy || !chosen}>
          Assign
        </button>
      </form>
      {act.failure && <ErrorMessage error={act.failure} />}
    </section>
  );
}

export function AccessPolicies() {
  const [offset, setOffset] = useState(0);
  const list = useApi<{ access_policies: AccessPolicy[]; total_count: number }>(withQuery("/api/v1/access-policies", { limit: PAGE_SIZE, offset }));
  const [open, setOpen] = useState<AccessPolicy | "new">();
  const act = useAction();

  function remove(p: AccessPolicy) {
    if (!window.confirm(`Delete the access policy ${p.name}?`)) return;
    void act.run(async () => {
      await api(`/api/v1/access-policies/${encodeURIComponent(p.id)}`, { method: "DELETE" });
      setOpen(undefined);
      list.reload();
    });
  }

  const saved = (p: AccessPolicy) => {
    setOpen(p);
    list.reload();
  };

  return (
    <>
      <h1>Access policies</h1>
      <p className="muted">
        A policy narrows what the API keys, users and client applications assigned to it reach in the FHIR store, on top of their role, their SMART scopes and patients' consent: the resource types it names
        (read-only if so), those matching its criteria or in its compartment, without its hidden fields.
      </p>
      <button type="button" onClick={() => setOpen("new")} disabled={open === "new"}>
        New policy
      </button>
      {open === "new" && <PolicyForm onSaved={saved} />}
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="access policies" />}
      {list.data?.total_count === 0 && open !== "new" && (
        <EmptyState title="No access policies yet">
          <p>Create one to keep a key, a user or an app to some resource types, some patients or some fields.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Access policies</caption>
            <TableHead columns={["Name", "Rules", "Updated"]} actions />
            <tbody>
              {list.data.access_policies.map((p) => (
                <tr key={p.id} data-policy={p.name}>
                  <td>{p.name}</td>
                  <td className="wrap">{summary(p.resources)}</td>
                  <td>{when(p.updated_at)}</td>
                  <td>
                    <button type="button" onClick={() => setOpen(p)}>
                      Open {p.name}
                    </button>{" "}
                    <button type="button" disabled={act.busy} onClick={() => remove(p)}>
                      Delete {p.name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Access policies" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
      {open && open !== "new" && (
        <section aria-label={`Access policy ${open.name}`} key={open.id}>
          <h2>{open.name}</h2>
          <PolicyForm initial={open} onSaved={saved} />
          <Assignments policy={open} />
        </section>
      )}
    </>
  );
}
