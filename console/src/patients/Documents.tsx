// The patient's DocumentReferences (paged with the Bundle's links), each downloadable: inline
// data is decoded in the browser, a URL (e.g. Binary/…) is fetched with the session.
import { useState } from "react";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { ApiFailure, CSRF_HEADER, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase, matches } from "./fhir";
import { TableHead } from "../components/TableHead";
import { LinkPager } from "./LinkPager";

interface Attachment {
  contentType?: string;
  data?: string;
  url?: string;
  title?: string;
}
interface DocumentReference {
  id: string;
  date?: string;
  description?: string;
  status?: string;
  type?: { text?: string; coding?: { display?: string }[] };
  content?: { attachment: Attachment }[];
}

async function blobOf(orgId: string, a: Attachment): Promise<Blob> {
  if (a.data) return new Blob([Uint8Array.from(atob(a.data), (c) => c.charCodeAt(0))], { type: a.contentType ?? "application/octet-stream" });
  const url = a.url?.startsWith("http") || a.url?.startsWith("/") ? a.url : `${fhirBase(orgId)}/${a.url}`;
  const res = await fetch(url, { credentials: "same-origin", headers: { [CSRF_HEADER]: "1", accept: a.contentType ?? "*/*" } });
  if (!res.ok) throw new ApiFailure(res.status, "DOWNLOAD", `The document could not be downloaded (HTTP ${res.status}).`);
  return res.blob();
}

export function Documents({ orgId, patientId }: { orgId: string; patientId: string }) {
  const [path, setPath] = useState(withQuery(`${fhirBase(orgId)}/DocumentReference`, { patient: patientId, _count: 20, _sort: "-date" }));
  const docs = useApi<Bundle<DocumentReference>>(path);
  const download = useAction();

  function save(d: DocumentReference, a: Attachment) {
    void download.run(async () => {
      const href = URL.createObjectURL(await blobOf(orgId, a));
      const link = document.createElement("a");
      link.href = href;
      link.download = a.title ?? `document-${d.id}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(href), 1000);
    });
  }

  if (docs.error) return <ErrorMessage error={docs.error} />;
  if (!docs.data) return <Loading what="documents" />;
  const list = matches(docs.data);
  if (list.length === 0)
    return (
      <EmptyState title="No documents">
        <p>Documents arrive through MHD/XDS submissions, HL7 MDM messages or the FHIR API (DocumentReference).</p>
      </EmptyState>
    );
  return (
    <section aria-label="Documents">
      {download.failure && <ErrorMessage error={download.failure} />}
      <table>
        <caption className="visually-hidden">Documents</caption>
        <TableHead columns={["Date", "Type", "Description", "Status"]} actions />
        <tbody>
          {list.map((d) => (
            <tr key={d.id}>
              <td>{d.date ? new Date(d.date).toLocaleString() : "—"}</td>
              <td>{d.type?.text ?? d.type?.coding?.[0]?.display ?? "—"}</td>
              <td>{d.description ?? "—"}</td>
              <td>{d.status ?? "—"}</td>
              <td>
                {(d.content ?? []).map((c, i) => (
                  <button key={c.attachment.url ?? c.attachment.title ?? c.attachment.contentType ?? i} type="button" onClick={() => save(d, c.attachment)}>
                    Download {c.attachment.title ?? c.attachment.contentType ?? `document ${i + 1}`}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {docs.data && <LinkPager bundle={docs.data} label="Documents" onChange={setPath} />}
    </section>
  );
}
