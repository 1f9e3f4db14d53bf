// Two versions of a resource side by side as a line diff of their JSON (jsdiff's diffLines),
// fetched by vread: what changed between the versions a reader picks from the history.
import { diffLines } from "diff";
import { type FormEvent, useState } from "react";
import { ErrorMessage, Loading } from "../components/States";
import { ApiFailure, api } from "../lib/api";

export interface DiffLine {
  kind: "added" | "removed" | "same";
  text: string;
}

/** The JSON of `before` and `after` (two-space indent) as lines marked added, removed or the same. */
export function jsonDiff(before: unknown, after: unknown): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(`${JSON.stringify(before, null, 2)}\n`, `${JSON.stringify(after, null, 2)}\n`)) {
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    for (const text of part.value.replace(/\n$/, "").split("\n")) lines.push({ kind, text });
  }
  return lines;
}

const MARK = { added: "+ ", removed: "- ", same: "  " } as const;

export function VersionDiff({ self, versions }: { self: string; versions: string[] }) {
  const [from, setFrom] = useState(versions[1] ?? versions[0] ?? "");
  const [to, setTo] = useState(versions[0] ?? "");
  const [state, setState] = useState<{ lines?: DiffLine[]; error?: ApiFailure; loading?: boolean; shown?: [string, string] }>({});
  if (versions.length < 2) return null;

  async function compare(e: FormEvent) {
    e.preventDefault();
    setState({ loading: true });
    try {
      const [a, b] = await Promise.all([from, to].map((v) => api<unknown>(`${self}/_history/${encodeURIComponent(v)}`)));
      setState({ lines: jsonDiff(a, b), shown: [from, to] });
    } catch (err) {
      setState({ error: err instanceof ApiFailure ? err : new ApiFailure(0, "CLIENT", String(err)) });
    }
  }

  const added = state.lines?.filter((l) => l.kind === "added").length ?? 0;
  const removed = state.lines?.filter((l) => l.kind === "removed").length ?? 0;
  return (
    <section aria-labelledby="diff-heading">
      <h2 id="diff-heading">Compare versions</h2>
      <form className="inline-form" aria-label="Compare versions" onSubmit={compare}>
        <VersionSelect label="From version" name="diff-from" value={from} versions={versions} onChange={setFrom} />
        <VersionSelect label="To version" name="diff-to" value={to} versions={versions} onChange={setTo} />
        <button type="submit">Show differences</button>
      </form>
      {state.loading && <Loading what="both versions" />}
      {state.error && <ErrorMessage error={state.error} />}
      {state.lines && state.shown && (
        <figure className="json-block" aria-label={`Differences from version ${state.shown[0]} to version ${state.shown[1]}`}>
          <figcaption className="muted">
            Version {state.shown[0]} → {state.shown[1]}: {added} line{added === 1 ? "" : "s"} added, {removed} removed
          </figcaption>
          <pre className="resource-json json-diff">
            {state.lines.map((l, i) => {
              const text = `${MARK[l.kind]}${l.text}`;
              // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines are identified by their position.
              return l.kind === "added" ? <ins key={i}>{text}</ins> : l.kind === "removed" ? <del key={i}>{text}</del> : <span key={i}>{text}</span>;
            })}
          </pre>
        </figure>
      )}
    </section>
  );
}

function VersionSelect(props: { label: string; name: string; value: string; versions: string[]; onChange(v: string): void }) {
  return (
    <label>
      {props.label}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.versions.map((v) => (
          <option key={v}>{v}</option>
        ))}
      </select>
    </label>
  );
}
