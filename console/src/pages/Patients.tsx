// Patients: PDQm-style search (name, birth date, identifier) over the FHIR store, paged with the
// Bundle's cursor links; each result opens the patient's page.
import { type FormEvent, useState } from "react";
import { Link } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase, matches, nameOf, type Patient } from "../patients/fhir";
import { TableHead } from "../components/TableHead";
import { LinkPager } from "../patients/LinkPager";

export function Patients() {
  const { session } = useSession();
  const base = `${fhirBase(session?.organization.id ?? "")}/Patient`;
  const [form, setForm] = useState({ name: "", birthdate: "", identifier: "" });
  const [path, setPath] = useState<string | null>(withQuery(base, { _count: 20, _sort: "family" }));
  const result = useApi<Bundle<Patient>>(path);

  function search(e: FormEvent) {
    e.preventDefault();
    setPath(withQuery(base, { name: form.name.trim(), birthdate: form.birthdate, identifier: form.identifier.trim(), _count: 20, _sort: "family" }));
  }

  const bundle = result.data;
  const patients = bundle ? matches(bundle) : [];
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
          Identifier (system|value)
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
