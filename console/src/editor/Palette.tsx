// The node catalog beside the canvas: search, a category filter, each type's ports and their types.
import { useState } from "react";
import { type CatalogNode, filterCatalog } from "./catalog";

export function Palette({ nodes, categories, onAdd }: { nodes: CatalogNode[]; categories: string[]; onAdd(type: CatalogNode): void }) {
  const [query, setQuery] = useState("");
  const [category, setCategory] = useState("");
  const shown = filterCatalog(nodes, query, category);
  return (
    <aside className="palette" aria-label="Node catalog">
      <label>
        Search nodes
        <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
      </label>
      <label>
        Category
        <select value={category} onChange={(e) => setCategory(e.target.value)}>
          <option value="">All</option>
          {categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <ul className="palette-list">
        {shown.map((n) => (
          <li key={n.id}>
            <button type="button" onClick={() => onAdd(n)} data-node-type={n.id} title={n.description}>
              <strong>
                <span className="visually-hidden">Add </span>
                {n.name}
              </strong>
              <span className="muted"> {n.id}</span>
              <span className="port-line">
                {n.inputs.map((p) => `${p.name}:${p.type}`).join(", ") || "—"} → {n.outputs.map((p) => `${p.name}:${p.type}`).join(", ") || "—"}
              </span>
            </button>
          </li>
        ))}
        {shown.length === 0 && <li className="muted">No node matches.</li>}
      </ul>
    </aside>
  );
}
