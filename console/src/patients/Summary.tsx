// The IPS ($summary) as a clinical summary: who and when, then each Composition section as a
// table of its entries (item, value with unit, status, date), repeated measurements of one kind
// folded into their latest value with the count, span and range (patients/ips.ts).
import { ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { useApi } from "../lib/use-api";
import { fhirBase } from "./fhir";
import { conceptLabel, formatDate, type IpsResource, type IpsSection, seriesSummary, sectionRows } from "./ips";

interface DocumentBundle {
  timestamp?: string;
  entry?: { fullUrl?: string; resource?: IpsResource }[];
}

export function Summary({ orgId, patientId }: { orgId: string; patientId: string }) {
  const ips = useApi<DocumentBundle>(`${fhirBase(orgId)}/Patient/${encodeURIComponent(patientId)}/$summary`);
  if (ips.error) return <ErrorMessage error={ips.error} />;
  if (!ips.data) return <Loading what="the patient summary" />;
  const entries = ips.data.entry ?? [];
  const byRef = new Map<string, IpsResource>();
  for (const e of entries) {
    if (!e.resource) continue;
    if (e.fullUrl) byRef.set(e.fullUrl, e.resource);
    byRef.set(`${e.resource.resourceType}/${e.resource.id}`, e.resource);
  }
  // References inside a document resolve against the entries' fullUrls, or as Type/id among them.
  const resolve = (ref: unknown) => {
    const r = (ref as { reference?: string } | undefined)?.reference;
    if (!r) return undefined;
    return byRef.get(r) ?? byRef.get(r.split("/_history/")[0]!.split("/").slice(-2).join("/"));
  };
  const composition = entries.find((e) => e.resource?.resourceType === "Composition")?.resource as (IpsResource & { title?: string; date?: string; section?: IpsSection[] }) | undefined;
  return (
    <section aria-label="Patient summary">
      <h2>{composition?.title ?? "Patient summary"}</h2>
      <p className="muted">Generated {formatDate(composition?.date ?? ips.data.timestamp)}</p>
      {(composition?.section ?? []).map((s) => {
        const rows = sectionRows(s, resolve);
        return (
          <section key={s.title} className="ips-section" aria-label={s.title}>
            <h3>{s.title}</h3>
            {rows.length ? (
              <table className="ips-table">
                <caption className="visually-hidden">{s.title}</caption>
                <TableHead columns={["Item", "Value", "Status", "Date"]} />
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.key}>
                      <td>
                        {row.item}
                        {row.series && (
                          <details>
                            <summary>{seriesSummary(row)}</summary>
                            <ul className="ips-series">
                              {row.series.map((x, i) => (
                                // biome-ignore lint/suspicious/noArrayIndexKey: readings may share a time; their position is their identity.
                                <li key={i}>
                                  {x.value} · {formatDate(x.date)}
                                </li>
                              ))}
                            </ul>
                          </details>
                        )}
                      </td>
                      <td>{row.value || "—"}</td>
                      <td>{row.status || "—"}</td>
                      <td>{formatDate(row.date)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="muted">No information{conceptLabel(s.emptyReason) ? ` (${conceptLabel(s.emptyReason)?.toLowerCase()})` : ""}</p>
            )}
          </section>
        );
      })}
    </section>
  );
}
