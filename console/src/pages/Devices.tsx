// Devices: the organization's platform integrations (administrators), a patient's devices with
// Sync now and alert rules per device panel, and the alerts to acknowledge or resolve.
// The patient is picked by id (`?patient=` keeps it in the address, so the page links).
import { type FormEvent, useState } from "react";
import { useSearch } from "wouter";
import { Alerts } from "../devices/Alerts";
import { Integrations } from "../devices/Integrations";
import { PatientDevices } from "../devices/PatientDevices";
import { useSession } from "../lib/session";

export function Devices() {
  const { can } = useSession();
  const initial = new URLSearchParams(useSearch()).get("patient") ?? "";
  const [patientId, setPatientId] = useState(initial);
  const [typed, setTyped] = useState(initial);

  function pick(e: FormEvent) {
    e.preventDefault();
    const id = typed.trim();
    setPatientId(id);
    window.history.replaceState(null, "", id ? `?patient=${encodeURIComponent(id)}` : window.location.pathname);
  }

  return (
    <>
      <h1>Devices</h1>
      {can("connectors:manage") && <Integrations />}
      <section aria-labelledby="patient-devices-h">
        <h2 id="patient-devices-h">Patient devices</h2>
        <form className="inline-form" onSubmit={pick} aria-label="Patient">
          <label>
            Patient id
            <input name="patient" value={typed} onChange={(e) => setTyped(e.target.value)} required pattern="[A-Za-z0-9\-.]{1,64}" />
          </label>
          <button type="submit">Show devices</button>
        </form>
        {patientId ? <PatientDevices key={patientId} patientId={patientId} /> : <p className="muted">Enter a patient's id to see their devices, sync them and set alert rules.</p>}
      </section>
      {can("alerts:read") && <Alerts key={patientId} {...(patientId ? { patientId } : {})} />}
    </>
  );
}
