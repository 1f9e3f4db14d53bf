// Starts a Bulk Data export through the FHIR `$export` operation (system, Patient or Group level),
// with `_type` from the service's own list of exportable types and `_since`; the IG's kick-off
// headers (Accept: application/fhir+json, Prefer: respond-async) are sent as it requires.
import { type FormEvent, useState } from "react";
import { EXPORTABLE_TYPES, ON_REQUEST_SYSTEM_TYPES } from "../../../src/features/export/exportable";
import { ErrorMessage } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase, matches } from "../patients/fhir";
import type { ExportLevel } from "./types";

const KICKOFF_HEADERS = { accept: "application/fhir+json", prefer: "respond-async" };
const LEVELS: { value: ExportLevel; label: string }[] = [
  { value: "system", label: "Everything (system level)" },
  { value: "patient", label: "All patients (Patient level)" },
  { value: "group", label: "A group's patients (Group level)" },
];

interface Group {
  id: string;
  name?: string;
}

export function KickoffForm({ orgId, onStarted }: { orgId: string; onStarted(): void }) {
  const [level, setLevel] = useState<ExportLevel>("system");
  const [groupId, setGroupId] = useState("");
  const [types, setTypes] = useState<string[]>([]);
  const [since, setSince] = useState("");
  const action = useAction();
  const groups = useApi<Bundle<Group>>(level === "group" ? withQuery(`${fhirBase(orgId)}/Group`, { _count: 100, _sort: "name" }) : null);
  const offered = level === "system" ? [...EXPORTABLE_TYPES, ...ON_REQUEST_SYSTEM_TYPES] : [...EXPORTABLE_TYPES];
  const groupList = groups.data ? matches(groups.data) : [];

  function toggle(type: string, on: boolean) {
    setTypes(on ? [...types, type] : types.filter((t) => t !== type));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const target = level === "system" ? "$export" : level === "patient" ? "Patient/$export" : `Group/${encodeURIComponent(groupId)}/$export`;
    const chosen = types.filter((t) => offered.includes(t));
    const path = withQuery(`${fhirBase(orgId)}/${target}`, { _type: chosen.join(","), _since: since ? new Date(since).toISOString() : undefined });
    void action.run(async () => {
      await api(path, { headers: KICKOFF_HEADERS });
      setTypes([]);
      onStarted();
    });
  }

  return (
    <form onSubmit={submit} aria-label="Start an export" className="export-form">
      <div className="inline-form">
        <label>
          Level
          <select name="level" value={level} onChange={(e) => setLevel(e.target.value as ExportLevel)}>
            {LEVELS.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        {level === "group" && (
          <label>
            Group
            <select name="group" value={groupId} onChange={(e) => setGroupId(e.target.value)} required>
              <option value="">{groupList.length ? "Choose a group…" : "No groups: create a FHIR Group first"}</option>
              {groupList.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name ?? g.id}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Changed since (optional)
          <input name="since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
        </label>
      </div>
      <fieldset className="type-choices">
        <legend>Resource types (none ticked: every type {level === "system" ? "except AuditEvent" : "in the Patient compartment"})</legend>
        {offered.map((t) => (
          <label key={t} className="checkbox">
            <input type="checkbox" name="_type" value={t} checked={types.includes(t)} onChange={(e) => toggle(t, e.target.checked)} /> {t}
          </label>
        ))}
      </fieldset>
      {groups.error && <ErrorMessage error={groups.error} />}
      {action.failure && <ErrorMessage error={action.failure} />}
      <button type="submit" disabled={action.busy || (level === "group" && !groupId)}>
        Start export
      </button>
    </form>
  );
}
