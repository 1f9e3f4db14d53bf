// A completed export's manifest (its Bulk Data status URL answers 200 with it): one download link
// per file. The links are plain same-origin GETs, which the session cookie authenticates.
import { ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { useApi } from "../lib/use-api";
import { type Manifest, type ManifestFile, pathOf } from "./types";

const fileName = (f: ManifestFile) => pathOf(f.url).split("/").pop() ?? f.type;

export function ManifestView({ statusUrl, exportId }: { statusUrl: string; exportId: string }) {
  const manifest = useApi<Manifest>(pathOf(statusUrl));
  if (manifest.error) return <ErrorMessage error={manifest.error} />;
  if (!manifest.data) return <Loading what="the manifest" />;
  const files = [...manifest.data.output.map((f) => ({ f, kind: "data" })), ...manifest.data.error.map((f) => ({ f, kind: "errors (OperationOutcome)" }))];
  return (
    <section className="manifest" aria-label={`Files of export ${exportId}`}>
      <p className="muted">Includes changes up to {new Date(manifest.data.transactionTime).toLocaleString()}.</p>
      {files.length === 0 ? (
        <p>No resources matched, so the export has no files.</p>
      ) : (
        <table>
          <caption className="visually-hidden">Files of export {exportId}</caption>
          <TableHead columns={["File", "Type", "Resources", "Kind"]} />
          <tbody>
            {files.map(({ f, kind }) => (
              <tr key={f.url}>
                <td>
                  <a href={pathOf(f.url)} download={fileName(f)}>
                    {fileName(f)}
                  </a>
                </td>
                <td>{f.type}</td>
                <td>{f.count}</td>
                <td>{kind}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
