// A node type's documentation beside its configuration form (whose heading gives the one-line
// description): the catalog's notes, its ports, its
// configuration fields (the config_schema's descriptions) and the catalog's worked example
// (GET /api/node-catalog/{id}, the same text the copilot and the API reference give).
import { ErrorMessage } from "../components/States";
import { useApi } from "../lib/use-api";
import type { CatalogNode, Port } from "./catalog";

interface Documentation {
  summary: string;
  example: { config?: unknown; inputs?: unknown; outputs?: unknown };
}

interface SchemaProperty {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
}

function Ports({ title, ports }: { title: string; ports: Port[] }) {
  if (ports.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <dl className="doc-list">
        {ports.map((p) => (
          <div key={p.name}>
            <dt>
              <code>{p.name}</code> <span className="port-type">{p.type}</span>
            </dt>
            <dd>{p.description ?? "—"}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

function fieldLine(p: SchemaProperty): string {
  const kind = p.enum ? `one of ${p.enum.map((v) => JSON.stringify(v)).join(", ")}` : Array.isArray(p.type) ? p.type.join(" | ") : (p.type ?? "value");
  const fallback = p.default !== undefined ? ` (default ${JSON.stringify(p.default)})` : "";
  return `${kind}${fallback}${p.description ? ` — ${p.description}` : ""}`;
}

export function NodeDocs({ type }: { type: CatalogNode }) {
  const detail = useApi<{ documentation: Documentation }>(`/api/node-catalog/${encodeURIComponent(type.id)}`);
  const schema = type.config_schema as { properties?: Record<string, SchemaProperty>; required?: string[] };
  const fields = Object.entries(schema.properties ?? {});
  const doc = detail.data?.documentation;
  return (
    <section className="node-docs" aria-label={`Documentation for ${type.name}`}>
      <h3>
        {type.name} <span className="muted">{type.id}</span>
      </h3>
      {detail.error && <ErrorMessage error={detail.error} />}
      {doc && <p className="doc-summary">{doc.summary}</p>}
      <Ports title="Inputs" ports={type.inputs} />
      <Ports title="Outputs" ports={type.outputs} />
      {fields.length > 0 && (
        <>
          <h4>Configuration</h4>
          <dl className="doc-list">
            {fields.map(([name, p]) => (
              <div key={name}>
                <dt>
                  <code>{name}</code>
                  {schema.required?.includes(name) && <span className="muted"> required</span>}
                </dt>
                <dd>{fieldLine(p)}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
      {doc && (
        <>
          <h4>Example</h4>
          {(["config", "inputs", "outputs"] as const).map((part) =>
            doc.example[part] === undefined ? null : (
              <div key={part}>
                <span className="muted">{part}</span>
                <pre className="doc-example">{JSON.stringify(doc.example[part], null, 2)}</pre>
              </div>
            ),
          )}
        </>
      )}
    </section>
  );
}
