// Patients: PDQm-style search (name, birth date, identifier) over the FHIR store, paged with the
// Bundle's cursor links; each result opens the patient's page. When nothing matches exactly, the
// PDQm matcher ($match) offers the closest patients ("did you mean").
import { type FormEvent, useEffect, useState } from "react";
import { Link } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase, matches, nameOf, type Patient } from "../patients/fhir";
import { TableHead } from "../components/TableHead";
import { LinkPager } from "../patients/LinkPager";
import { gradeOf, matchParameters, type PatientQuery, searchParams } from "../patients/match";

export function Patients() {
  const { session } = useSession();
  const base = `${fhirBase(session?.organization.id ?? "")}/Patient`;
  const [form, setForm] = useState<PatientQuery>({ name: "", birthdate: "", identifier: "" });
  const [searched, setSearched] = useState<PatientQuery | null>(null);
  const [path, setPath] = useState<string | null>(withQuery(base, { _count: 20, _sort: "family" }));
  const result = useApi<Bundle<Patient>>(path);

  function search(e: FormEvent) {
    e.preventDefault();
    setSearched(form);
    setPath(withQuery(base, { ...searchParams(form), _count: 20, _sort: "family" }));
  }

  const bundle = result.data;
  const patients = bundle ? matches(bundle) : [];
  const suggestions = useSuggestions(base, bundle && !result.loading && patients.length === 0 ? searched : null);
  return (
    <>
      <h1>Patients</h1>
      <form className="inline-form" onSubmit={search} aria-label="Find patients">
        <label>
          Name
          <input name="name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </label>
        <label>
          Birth date
          <input name="birthdate" type="date" value={form.birthdate} onChange={(e) => setForm({ ...form, birthdate: e.target.value })} />
        </label>
        <label>
          Identifier (MRN, or system|value)
          <input name="identifier" value={form.identifier} onChange={(e) => setForm({ ...form, identifier: e.target.value })} />
        </label>
        <button type="submit">Search</button>
      </form>
      {result.error && <ErrorMessage error={result.error} />}
      {result.loading && !bundle && <Loading what="patients" />}
      {bundle && patients.length === 0 && (
        <EmptyState title="No patients found">
          <p>Try fewer criteria, or create patients through the FHIR API or an HL7 feed.</p>
        </EmptyState>
      )}
      {suggestions.error && <ErrorMessage error={suggestions.error} />}
      {suggestions.entries.length > 0 && (
        <section aria-labelledby="did-you-mean">
          <h2 id="did-you-mean">Did you mean</h2>
          <p className="muted">Patients the demographics matcher scores close to what you typed.</p>
          <ul className="suggestions">
            {suggestions.entries.map((m) => (
              <li key={m.patient.id}>
                <Link href={`/patients/${encodeURIComponent(m.patient.id)}`}>{nameOf(m.patient)}</Link>
                {" · "}born {m.patient.birthDate ?? "unknown"}
                {(m.patient.identifier ?? []).length > 0 && ` · ${(m.patient.identifier ?? []).map((i) => i.value).join(", ")}`}
                {" · "}
                <span className="muted">{m.grade}</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {patients.length > 0 && (
        <table>
          <caption className="visually-hidden">Patients</caption>
          <TableHead columns={["Name", "Birth date", "Gender", "Identifiers"]} />
          <tbody>
            {patients.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link href={`/patients/${encodeURIComponent(p.id)}`}>{nameOf(p)}</Link>
                </td>
                <td>{p.birthDate ?? "—"}</td>
                <td>{p.gender ?? "—"}</td>
                <td>{(p.identifier ?? []).map((i) => i.value).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {bundle && <LinkPager bundle={bundle} label="Patients" onChange={setPath} />}
    </>
  );
}

interface Suggestion {
  patient: Patient;
  grade: string;
}

/** The $match answer for a search that found nobody: the matcher's candidates with their grade. */
function useSuggestions(base: string, query: PatientQuery | null): { entries: Suggestion[]; error?: ApiFailure } {
  const [state, setState] = useState<{ entries: Suggestion[]; error?: ApiFailure }>({ entries: [] });
  useEffect(() => {
    const body = query ? matchParameters(query) : undefined;
    setState({ entries: [] });
    if (!body) return;
    let live = true;
    api<{ entry?: { resource?: Patient; search?: Parameters<typeof gradeOf>[0] }[] }>(`${base}/$match`, { method: "POST", body })
      .then((b) => live && setState({ entries: (b.entry ?? []).filter((e) => e.resource).map((e) => ({ patient: e.resource!, grade: gradeOf(e.search) })) }))
      .catch((e: unknown) => live && setState({ entries: [], error: e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)) }));
    return () => {
      live = false;
    };
  }, [base, query]);
  return state;
}
