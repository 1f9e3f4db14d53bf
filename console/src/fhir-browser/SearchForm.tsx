// The FHIR browser's search form: the resource type (from the CapabilityStatement), free-form
// `name=value` rows with the type's search parameters offered, `_count` and `_sort`. Submitting
// navigates to `/fhir-browser/<type>?<parameters>`, so every search is a link.
import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import type { CapabilityResource } from "./capabilities";

interface Row {
  key: number;
  name: string;
  value: string;
}

/** Parameters the form has its own fields for, or that belong to a page (the cursor). */
const OWN = new Set(["_count", "_sort", "_cursor"]);

let nextKey = 0;
const row = (name = "", value = ""): Row => ({ key: nextKey++, name, value });

export function SearchForm({ resources, type, query }: { resources: CapabilityResource[]; type: string; query: URLSearchParams }) {
  const [, navigate] = useLocation();
  const [chosen, setChosen] = useState(type);
  const initial = [...query].filter(([k]) => !OWN.has(k)).map(([k, v]) => row(k, v));
  const [rows, setRows] = useState<Row[]>(initial.length ? initial : [row()]);
  const [count, setCount] = useState(query.get("_count") ?? "20");
  const [sort, setSort] = useState(query.get("_sort") ?? "");
  const params = resources.find((r) => r.type === chosen)?.searchParam ?? [];

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!chosen) return;
    const q = new URLSearchParams();
    for (const r of rows) if (r.name.trim()) q.append(r.name.trim(), r.value);
    if (count.trim()) q.set("_count", count.trim());
    if (sort.trim()) q.set("_sort", sort.trim());
    const qs = q.toString();
    navigate(`/fhir-browser/${encodeURIComponent(chosen)}${qs ? `?${qs}` : ""}`);
  }

  const update = (key: number, patch: Partial<Row>) => setRows(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  return (
    <form className="fhir-search" onSubmit={submit} aria-label="Search FHIR resources">
      <div className="inline-form">
        <label>
          Resource type
          <select name="type" value={chosen} onChange={(e) => setChosen(e.target.value)}>
            <option value="">Choose a type…</option>
            {resources.map((r) => (
              <option key={r.type} value={r.type}>
                {r.type}
              </option>
            ))}
          </select>
        </label>
        <label>
          _count
          <input name="_count" type="number" min={1} max={1000} value={count} onChange={(e) => setCount(e.target.value)} />
        </label>
        <label>
          _sort
          <input name="_sort" list="fhir-sort-params" placeholder="-_lastUpdated" value={sort} onChange={(e) => setSort(e.target.value)} />
        </label>
      </div>
      <datalist id="fhir-search-params">
        {params.map((p) => (
          <option key={p.name} value={p.name}>
            {p.type}
            {p.documentation ? ` · ${p.documentation}` : ""}
          </option>
        ))}
      </datalist>
      <datalist id="fhir-sort-params">
        {params.flatMap((p) => [<option key={p.name} value={p.name} />, <option key={`-${p.name}`} value={`-${p.name}`} />])}
      </datalist>
      <fieldset>
        <legend>Search parameters</legend>
        {rows.map((r, i) => (
          <div className="param-row" key={r.key}>
            <label>
              Parameter {i + 1}
              <input name="param-name" list="fhir-search-params" placeholder="name or name:modifier" value={r.name} onChange={(e) => update(r.key, { name: e.target.value })} />
            </label>
            <label>
              Value {i + 1}
              <input name="param-value" value={r.value} onChange={(e) => update(r.key, { value: e.target.value })} />
            </label>
            <button type="button" onClick={() => setRows(rows.length > 1 ? rows.filter((x) => x.key !== r.key) : [row()])}>
              Remove<span className="visually-hidden"> parameter {i + 1}</span>
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setRows([...rows, row()])}>
          Add parameter
        </button>
      </fieldset>
      <button type="submit" disabled={!chosen}>
        Search
      </button>
    </form>
  );
}
