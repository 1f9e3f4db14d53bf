// The selected node's settings: display name and its configuration as JSON, checked as you type
// against the node type's config_schema (@cfworker/json-schema: no code generation, so it runs
// under the console's CSP, unlike Ajv). Applied to the node only when it is valid JSON.
import { Validator } from "@cfworker/json-schema";
import { useMemo, useState } from "react";
import type { DefinitionNode } from "./definition";
import type { CatalogNode } from "./catalog";

function problemsOf(text: string, validator: Validator | undefined): { value?: Record<string, unknown>; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problems: [`Not JSON: ${(e as Error).message}`] };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { problems: ["The configuration is a JSON object"] };
  const result = validator?.validate(value);
  const problems = result && !result.valid ? result.errors.filter((e) => e.keyword !== "properties" && e.keyword !== "allOf").map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`) : [];
  return { value: value as Record<string, unknown>, problems };
}

export function ConfigPanel({ spec, type, onChange, onRemove }: { spec: DefinitionNode; type: CatalogNode | undefined; onChange(next: DefinitionNode): void; onRemove(): void }) {
  const [text, setText] = useState(() => JSON.stringify(spec.config, null, 2));
  const validator = useMemo(() => (type ? new Validator(type.config_schema as object, "2020-12", false) : undefined), [type]);
  const { value, problems } = problemsOf(text, validator);

  function edit(next: string) {
    setText(next);
    const checked = problemsOf(next, validator);
    // Schema problems still apply (the live validation shows them on the node); broken JSON does not.
    if (checked.value) onChange({ ...spec, config: checked.value });
  }

  return (
    <section className="config-panel" aria-label={`Configure ${spec.id}`}>
      <h2>
        {spec.id} <span className="muted">{spec.type}</span>
      </h2>
      {type && <p className="muted">{type.description}</p>}
      <label>
        Display name
        <input value={spec.name ?? ""} onChange={(e) => onChange({ ...spec, name: e.target.value || undefined })} />
      </label>
      <label>
        Configuration (JSON)
        <textarea className="config-json" rows={8} value={text} onChange={(e) => edit(e.target.value)} spellCheck={false} aria-invalid={problems.length > 0} aria-describedby={`config-problems-${spec.id}`} />
      </label>
      <ul id={`config-problems-${spec.id}`} className="config-problems" aria-live="polite">
        {problems.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      {value && problems.length === 0 && <p className="ok-text">Configuration valid.</p>}
      <button type="button" onClick={onRemove}>
        Remove node
      </button>
    </section>
  );
}
