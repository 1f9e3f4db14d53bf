// FHIR browser, one resource (`/fhir-browser/<type>/<id>`, a version at `/fhir-browser/<type>/<id>/_history/<vid>`):
// its JSON with every reference into the store as a link, Edit (validated, saved with If-Match),
// its history (each version opens) and a diff between two chosen versions.
import { useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { JsonView } from "../fhir-browser/JsonView";
import { ResourceEditor } from "../fhir-browser/ResourceEditor";
import { VersionDiff } from "../fhir-browser/VersionDiff";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase } from "../patients/fhir";
import { LinkPager } from "../patients/LinkPager";

interface Versioned {
  resourceType: string;
  id: string;
  meta?: { versionId?: string; lastUpdated?: string };
}

interface HistoryEntry {
  resource?: Versioned;
  request?: { method?: string; url?: string };
  response?: { status?: string; lastModified?: string };
}

export function FhirResource({ type, id, vid }: { type: string; id: string; vid?: string }) {
  const { session, can } = useSession();
  const base = fhirBase(session?.organization.id ?? "");
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string>();
  const self = `${base}/${encodeURIComponent(type)}/${encodeURIComponent(id)}`;
  const resource = useApi<Versioned>(vid ? `${self}/_history/${encodeURIComponent(vid)}` : self);
  const page = `/fhir-browser/${type}/${encodeURIComponent(id)}`;

  return (
    <>
      <p>
        <Link href="/fhir-browser">FHIR browser</Link> › <Link href={`/fhir-browser/${type}`}>{type}</Link> ›
      </p>
      <h1>
        {type}/{id}
        {vid ? ` — version ${vid}` : ""}
      </h1>
      {resource.error && <ErrorMessage error={resource.error} />}
      {!resource.error && !resource.data && <Loading what={`${type}/${id}`} />}
      {resource.data && (
        <>
          <p className="muted">
            Version {resource.data.meta?.versionId ?? "?"} · last updated {resource.data.meta?.lastUpdated ? new Date(resource.data.meta.lastUpdated).toLocaleString() : "unknown"}
            {vid && (
              <>
                {" "}
                · <Link href={page}>current version</Link>
              </>
            )}
          </p>
          {saved && (
            <p className="ok-text" role="status">
              {saved}
            </p>
          )}
          {editing ? (
            <ResourceEditor
              base={base}
              type={type}
              id={id}
              version={resource.data.meta?.versionId}
              initial={JSON.stringify(resource.data, null, 2)}
              onCancel={() => setEditing(false)}
              onSaved={(r) => {
                setEditing(false);
                setSaved(`Saved as version ${r.meta?.versionId ?? "?"}`);
                resource.reload();
              }}
            />
          ) : (
            <>
              {!vid && can("fhir:write") && (
                <button
                  type="button"
                  onClick={() => {
                    setSaved(undefined);
                    setEditing(true);
                  }}
                >
                  Edit
                </button>
              )}
              <JsonView value={resource.data} basePath={base} label={`${type}/${id} as JSON`} />
            </>
          )}
          <History key={resource.data.meta?.versionId} path={`${self}/_history?_count=20`} self={self} page={page} current={resource.data.meta?.versionId} />
        </>
      )}
    </>
  );
}

function History({ path: first, self, page, current }: { path: string; self: string; page: string; current?: string }) {
  const [path, setPath] = useState(first);
  const history = useApi<Omit<Bundle<Versioned>, "entry"> & { entry?: HistoryEntry[] }>(path);
  const entries = history.data?.entry ?? [];
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {history.error && <ErrorMessage error={history.error} />}
      {history.loading && <Loading what="the history" />}
      {history.data && !history.loading && (
        <table>
          <caption className="visually-hidden">Versions, newest first</caption>
          <TableHead columns={["Version", "Change", "When"]} />
          <tbody>
            {entries.map((e, i) => {
              const v = e.resource?.meta?.versionId;
              const when = e.resource?.meta?.lastUpdated ?? e.response?.lastModified;
              return (
                <tr key={v ?? `deleted-${i}`}>
                  <td>{v ? <Link href={`${page}/_history/${encodeURIComponent(v)}`}>Version {v}</Link> : "—"}{v && v === current ? " (shown)" : ""}</td>
                  <td>{e.request?.method ?? (e.resource ? "—" : "DELETE")}</td>
                  <td>{when ? new Date(when).toLocaleString() : "—"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {history.data && <LinkPager bundle={history.data} label="History" onChange={setPath} />}
      {history.data && !history.loading && <VersionDiff self={self} versions={entries.flatMap((e) => (e.resource?.meta?.versionId ? [e.resource.meta.versionId] : []))} />}
    </section>
  );
}
