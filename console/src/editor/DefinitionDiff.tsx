// What changes from one definition to another, as RFC 6902 operations (fast-json-patch), layout
// left out: the versions panel (a version against the canvas) and the copilot (the canvas against
// its proposal) both show it.
import { compare } from "fast-json-patch";
import type { Definition } from "./definition";

/** Layout is not a change worth listing. */
const withoutPositions = (d: Definition) => ({ ...d, nodes: d.nodes.map(({ position: _p, ...n }) => n) });

export function DefinitionDiff({ from, to, label, same }: { from: Definition; to: Definition; label: string; same: string }) {
  const changes = compare(withoutPositions(from), withoutPositions(to));
  if (changes.length === 0) return <p className="muted">{same}</p>;
  return (
    <ul aria-label={label} className="definition-diff">
      {changes.map((c) => (
        <li key={`${c.op}${c.path}`}>
          <code>{c.op}</code> {c.path}
          {"value" in c && <code> = {JSON.stringify(c.value)}</code>}
        </li>
      ))}
    </ul>
  );
}
