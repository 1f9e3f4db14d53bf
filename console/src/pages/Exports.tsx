// Exports: start a Bulk Data export, the organization's exports (paged, newest first) with live
// progress while any runs, each completed one's manifest with downloads, and cancel/delete.
import { Fragment, useEffect, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { KickoffForm } from "../exports/KickoffForm";
import { ManifestView } from "../exports/ManifestView";
import { type BulkExport, pathOf } from "../exports/types";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";

/** The status route's Retry-After. */
const POLL_MS = 2000;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

export function Exports() {
  const { session } = useSession();
  const orgId = session?.organization.id ?? "";
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string>();
  const list = useApi<{ bulk_exports: BulkExport[]; total_count: number }>(withQuery("/api/v1/bulk-exports", { limit: PAGE_SIZE, offset }));
  const action = useAction();
  const running = list.data?.bulk_exports.some((e) => e.status === "running") ?? false;

  // Live progress: ask again while an export on this page is still running.
  useEffect(() => {
    if (!running || list.loading) return;
    const timer = setTimeout(list.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, list.loading, list.reload]);

  const cancel = (e: BulkExport) =>
    action.run(async () => {
      await api(pathOf(e.status_url), { method: "DELETE" });
      if (open === e.id) setOpen(undefined);
      list.reload();
    });

  return (
    <>
      <h1>Exports</h1>
      <p className="muted">Bulk Data exports of the organization's FHIR data as NDJSON files (HL7 Bulk Data Access). Completed exports are kept for a limited time, then deleted.</p>
      <KickoffForm
        orgId={orgId}
        onStarted={() => {
          setOffset(0);
          list.reload();
        }}
      />
      <h2>The organization's exports</h2>
      {list.error && <ErrorMessage error={list.error} />}
      {action.failure && <ErrorMessage error={action.failure} />}
      {!list.data && !list.error && <Loading what="exports" />}
      {list.data && list.data.total_count === 0 && (
        <EmptyState title="No exports yet">
          <p>Choose the level and types above and start one; it runs in the background and its files appear here.</p>
        </EmptyState>
      )}
      {list.data && list.data.bulk_exports.length > 0 && (
        <table className="exports">
          <caption className="visually-hidden">Exports, newest first</caption>
          <TableHead columns={["Started", "Level", "Types", "Since", "By", "Status", "Resources"]} actions />
          <tbody>
            {list.data.bulk_exports.map((e) => (
              <Fragment key={e.id}>
                <tr data-export={e.id}>
                  <td>{when(e.created_at)}</td>
                  <td>
                    {e.level}
                    {e.group_id ? ` (Group/${e.group_id})` : ""}
                  </td>
                  <td>{e.types.join(", ")}</td>
                  <td>{when(e.since)}</td>
                  <td>{e.requested_by.name}</td>
                  <td className="export-status">
                    {e.status === "running" ? (
                      <>
                        <progress max={100} value={e.progress} aria-label={`Export ${e.id} progress`} /> running, {e.progress}%
                      </>
                    ) : (
                      e.status
                    )}
                    {e.failure ? `: ${e.failure}` : ""}
                    {e.status === "completed" && e.expires_at ? <span className="muted"> (files until {when(e.expires_at)})</span> : null}
                  </td>
                  <td>{e.exported}</td>
                  <td>
                    {e.status === "completed" && (
                      <button type="button" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? undefined : e.id)}>
                        {open === e.id ? "Hide files" : "Files"}
                      </button>
                    )}{" "}
                    {(e.status === "running" || e.status === "completed") && (
                      <button type="button" disabled={action.busy} onClick={() => void cancel(e)}>
                        {e.status === "running" ? "Cancel" : "Delete files"}
                      </button>
                    )}
                  </td>
                </tr>
                {open === e.id && (
                  <tr>
                    <td colSpan={8}>
                      <ManifestView statusUrl={e.status_url} exportId={e.id} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {list.data && <Pager offset={offset} total={list.data.total_count} onChange={setOffset} label="Exports" />}
    </>
  );
}
