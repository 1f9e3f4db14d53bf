// Paging for every list: the API pages with limit/offset and answers total_count.
export const PAGE_SIZE = 20;

export function Pager({ offset, total, pageSize = PAGE_SIZE, onChange, label }: { offset: number; total: number; pageSize?: number; onChange(offset: number): void; label: string }) {
  if (total <= pageSize && offset === 0) return null;
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + pageSize, total);
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - pageSize))}>
        Previous
      </button>
      <span>
        {first}–{last} of {total}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onChange(offset + pageSize)}>
        Next
      </button>
    </nav>
  );
}
