// One patient: name and identifiers, "Launch app" (SMART EHR launch) when the org has apps to launch, then the timeline, vitals, IPS summary and documents as tabs
// (the tab is kept in `?tab=` so each view links).
import { useState } from "react";
import { Link, useSearch } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { Documents } from "../patients/Documents";
import { fhirBase, nameOf, type Patient } from "../patients/fhir";
import { LaunchApp } from "../patients/LaunchApp";
import { Summary } from "../patients/Summary";
import { Timeline } from "../patients/Timeline";
import { Vitals } from "../patients/Vitals";

const TABS = ["timeline", "vitals", "summary", "documents"] as const;
type Tab = (typeof TABS)[number];

export function PatientDetail({ id }: { id: string }) {
  const { session } = useSession();
  const orgId = session?.organization.id ?? "";
  const patient = useApi<Patient>(`${fhirBase(orgId)}/Patient/${encodeURIComponent(id)}`);
  const asked = new URLSearchParams(useSearch()).get("tab") as Tab | null;
  const [tab, setTab] = useState<Tab>(asked && TABS.includes(asked) ? asked : "timeline");

  function choose(t: Tab) {
    setTab(t);
    window.history.replaceState(null, "", `?tab=${t}`);
  }

  if (patient.error) return <ErrorMessage error={patient.error} />;
  if (!patient.data) return <Loading what="the patient" />;
  const p = patient.data;
  return (
    <>
      <p>
        <Link href="/patients">Patients</Link> ›
      </p>
      <h1>{nameOf(p)}</h1>
      <p className="muted">
        {p.birthDate ?? "birth date unknown"} · {p.gender ?? "gender unknown"} · {(p.identifier ?? []).map((i) => `${i.system ?? ""}|${i.value ?? ""}`).join(", ") || "no identifiers"} · <Link href={`/devices?patient=${encodeURIComponent(p.id)}`}>devices</Link>
      </p>
      <LaunchApp patientId={p.id} />
      <div role="tablist" aria-label="Patient views" className="tabs">
        {TABS.map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls={`panel-${t}`} onClick={() => choose(t)}>
            {t[0]?.toUpperCase()}
            {t.slice(1)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === "timeline" && <Timeline patientId={p.id} />}
        {tab === "vitals" && <Vitals patientId={p.id} />}
        {tab === "summary" && <Summary orgId={orgId} patientId={p.id} />}
        {tab === "documents" && <Documents orgId={orgId} patientId={p.id} />}
      </div>
    </>
  );
}
