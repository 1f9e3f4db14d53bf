// Edit or create a FHIR resource as JSON, with the store's $validate answer beside the editor
// (each issue's field path from its `expression`), saved with If-Match on the version opened so a
// concurrent change is refused (412) and said in words instead of overwritten.
import { useState } from "react";
import { ApiFailure, api } from "../lib/api";

export interface Issue {
  severity?: string;
  diagnostics?: string;
  details?: { text?: string };
  expression?: string[];
}

interface Saved {
  resourceType: string;
  id: string;
  meta?: { versionId?: string };
}

/** The issues of an OperationOutcome (the $validate answer, or a refused write's body). */
export const issuesOf = (body: unknown): Issue[] => {
  const o = body as { resourceType?: string; issue?: Issue[] } | undefined;
  return o?.resourceType === "OperationOutcome" ? (o.issue ?? []) : [];
};

/** The JSON as a resource of `type`, or the reason it is not one. */
function parse(text: string, type: string): { resource?: Record<string, unknown>; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { problem: `Not JSON: ${(e as Error).message}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { problem: "A resource is a JSON object" };
  const r = value as Record<string, unknown>;
  if (r.resourceType !== type) return { problem: `resourceType must be "${type}" here` };
  return { resource: r };
}

export function ResourceEditor(props: { base: string; type: string; id?: string; version?: string; initial: string; onSaved(saved: Saved): void; onCancel(): void }) {
  const { base, type, id, version } = props;
  const [text, setText] = useState(props.initial);
  const [issues, setIssues] = useState<Issue[] | null>(null);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function validate(): Promise<Record<string, unknown> | undefined> {
    setProblem(undefined);
    const parsed = parse(text, type);
    if (!parsed.resource) {
      setIssues(null);
      setProblem(parsed.problem);
      return undefined;
    }
    const outcome = await api<unknown>(`${base}/${encodeURIComponent(type)}/$validate`, { method: "POST", body: parsed.resource });
    const found = issuesOf(outcome);
    setIssues(found);
    return found.some((i) => i.severity === "error" || i.severity === "fatal") ? undefined : parsed.resource;
  }

  async function act(save: boolean) {
    setBusy(true);
    try {
      const resource = await validate();
      if (!resource || !save) return;
      const saved = id
        ? await api<Saved>(`${base}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`, { method: "PUT", body: { ...resource, id }, headers: version ? { "if-match": `W/"${version}"` } : {} })
        : await api<Saved>(`${base}/${encodeURIComponent(type)}`, { method: "POST", body: resource });
      props.onSaved(saved);
    } catch (e) {
      if (!(e instanceof ApiFailure)) throw e;
      if (e.status === 412) setProblem(await conflict());
      else {
        setProblem(e.message);
        const found = issuesOf(e.body);
        if (found.length) setIssues(found);
      }
    } finally {
      setBusy(false);
    }
  }

  /** A version conflict in words: who moved the resource on, and what to do with these edits. */
  async function conflict(): Promise<string> {
    const now = await api<Saved>(`${base}/${encodeURIComponent(type)}/${encodeURIComponent(id!)}`).catch(() => undefined);
    const moved = now?.meta?.versionId ? `it is now at version ${now.meta.versionId}` : "it has since been changed or deleted";
    return `Not saved: someone else changed this ${type} after you opened version ${version}, and ${moved}. Your edits are still here; open the current version to see that change, then apply yours to it.`;
  }

  const errors = issues?.filter((i) => i.severity === "error" || i.severity === "fatal") ?? [];
  return (
    <section className="resource-editor" aria-label={id ? `Edit ${type}/${id}` : `New ${type}`}>
      <div className="resource-editor-grid">
        <label className="resource-editor-text">
          {type} as JSON
          <textarea name="resource-json" value={text} spellCheck={false} rows={24} onChange={(e) => setText(e.target.value)} />
        </label>
        <div className="validation-panel" aria-live="polite">
          <h2>Validation</h2>
          {problem && (
            <div className="error" role="alert">
              <p>{problem}</p>
            </div>
          )}
          {issues === null && !problem && <p className="muted">Validate checks the JSON against the FHIR R4 definitions; Save validates first.</p>}
          {issues !== null && errors.length === 0 && <p className="ok-text">No issues found</p>}
          {errors.length > 0 && (
            <ul className="issues" aria-label="Validation issues">
              {errors.map((i, n) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: issues have no identity but their order.
                <li key={n}>
                  {i.expression?.length ? <code>{i.expression.join(", ")}</code> : null} {i.diagnostics ?? i.details?.text ?? "Invalid"}
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => act(false)}>
          Validate
        </button>
        <button type="button" disabled={busy} onClick={() => act(true)}>
          {id ? "Save" : "Create"}
        </button>
        <button type="button" disabled={busy} onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
