// The selected node's settings: display name and its configuration, either as the form generated
// from the type's config_schema or as JSON for what a form cannot express; the JSON is checked as
// you type against the same schema (@cfworker/json-schema: no code generation, so it runs under
// the console's CSP, unlike Ajv) and applied to the node only when it is valid JSON.
import { Validator } from "@cfworker/json-schema";
import type { RJSFSchema } from "@rjsf/utils";
import { useMemo, useState } from "react";
import { ConfigForm } from "./ConfigForm";
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

export function ConfigPanel({
  spec,
  type,
  sample,
  onChange,
  onRemove,
}: {
  spec: DefinitionNode;
  type: CatalogNode | undefined;
  /** The node's input in the execution the data panes show: what expression fields preview on. */
  sample?: unknown;
  onChange(next: DefinitionNode): void;
  onRemove(): void;
}) {
  const [text, setText] = useState(() => JSON.stringify(spec.config, null, 2));
  // A schema with no properties to lay out (or no type in the catalog) opens as JSON.
  const [view, setView] = useState<"form" | "json">(() => (type?.config_schema.properties ? "form" : "json"));
  const validator = useMemo(() => (type ? new Validator(type.config_schema as object, "2020-12", false) : undefined), [type]);
  const { value, problems } = problemsOf(text, validator);

  function show(next: "form" | "json") {
    // The JSON view starts from the node's configuration as the form left it.
    if (next === "json") setText(JSON.stringify(spec.config, null, 2));
    setView(next);
  }

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
      <fieldset className="config-view-toggle">
        <legend>Configuration</legend>
        <button type="button" aria-pressed={view === "form"} disabled={!type} onClick={() => show("form")}>
          Form
        </button>
        <button type="button" aria-pressed={view === "json"} onClick={() => show("json")}>
          JSON
        </button>
      </fieldset>
      {view === "form" && type ? (
        <ConfigForm nodeId={spec.id} sample={sample} schema={type.config_schema as RJSFSchema} config={spec.config} onChange={(config) => onChange({ ...spec, config })} />
      ) : (
        <>
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
        </>
      )}
      <button type="button" onClick={onRemove}>
        Remove node
      </button>
    </section>
  );
}
