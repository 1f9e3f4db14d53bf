// The IPS ($summary) by section: each Composition section's title and the resources it lists.
import { ErrorMessage, Loading } from "../components/States";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase } from "./fhir";

interface Resource {
  resourceType: string;
  id?: string;
  code?: { text?: string; coding?: { display?: string; code?: string }[] };
  medicationCodeableConcept?: Resource["code"];
  vaccineCode?: Resource["code"];
  status?: string;
  title?: string;
  section?: { title?: string; entry?: { reference?: string }[]; emptyReason?: { text?: string } }[];
}

const concept = (c?: Resource["code"]) => c?.text ?? c?.coding?.[0]?.display ?? c?.coding?.[0]?.code;
const labelOf = (r: Resource) => concept(r.code) ?? concept(r.medicationCodeableConcept) ?? concept(r.vaccineCode) ?? `${r.resourceType}/${r.id}`;

export function Summary({ orgId, patientId }: { orgId: string; patientId: string }) {
  const ips = useApi<Bundle<Resource> & { entry?: { fullUrl?: string; resource?: Resource }[] }>(`${fhirBase(orgId)}/Patient/${encodeURIComponent(patientId)}/$summary`);
  if (ips.error) return <ErrorMessage error={ips.error} />;
  if (!ips.data) return <Loading what="the patient summary" />;
  const entries = ips.data.entry ?? [];
  const byRef = new Map<string, Resource>();
  for (const e of entries) {
    if (!e.resource) continue;
    if (e.fullUrl) byRef.set(e.fullUrl, e.resource);
    byRef.set(`${e.resource.resourceType}/${e.resource.id}`, e.resource);
  }
  const composition = entries.find((e) => e.resource?.resourceType === "Composition")?.resource;
  return (
    <section aria-label="Patient summary">
      <h2>{composition?.title ?? "Patient summary"}</h2>
      {(composition?.section ?? []).map((s) => (
        <section key={s.title} className="ips-section" aria-label={s.title}>
          <h3>{s.title}</h3>
          {s.entry?.length ? (
            <ul>
              {s.entry.map((e) => {
                const r = e.reference ? byRef.get(e.reference) : undefined;
                return <li key={e.reference}>{r ? `${labelOf(r)}${r.status ? ` (${r.status})` : ""}` : e.reference}</li>;
              })}
            </ul>
          ) : (
            <p className="muted">{s.emptyReason?.text ?? "No information"}</p>
          )}
        </section>
      ))}
    </section>
  );
}
