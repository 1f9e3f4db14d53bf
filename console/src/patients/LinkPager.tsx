// Paging for FHIR searches: the Bundle's cursor links, not offsets.
import { type Bundle, linkPath } from "./fhir";

export function LinkPager({ bundle, label, onChange }: { bundle: Bundle<unknown>; label: string; onChange(path: string): void }) {
  const next = linkPath(bundle, "next");
  const previous = linkPath(bundle, "previous");
  if (!next && !previous) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={!previous} onClick={() => previous && onChange(previous)}>
        Previous
      </button>
      <button type="button" disabled={!next} onClick={() => next && onChange(next)}>
        Next
      </button>
    </nav>
  );
}
