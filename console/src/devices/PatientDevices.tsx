// A patient's linked devices: status and last sync, Sync now (administrators and clinicians; the
// API refuses others) with the sync's live progress, and the device's alert rules. Sync now is
// offered only where the platform's descriptor (GET /api/v1/device-platforms) says a sync pulls;
// push-only sources (MQTT, companion apps) would be refused. Link and unlink need fhir:write.
import { useCallback, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { AlertRules } from "./AlertRules";
import { LinkDevice } from "./LinkDevice";
import { SyncProgress } from "./SyncProgress";
import type { PatientDevice, PlatformDescriptor } from "./types";

export function PatientDevices({ patientId }: { patientId: string }) {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const list = useApi<{ devices: PatientDevice[]; total_count: number }>(withQuery(`/api/v1/patients/${encodeURIComponent(patientId)}/devices`, { limit: PAGE_SIZE, offset }));
  const [syncing, setSyncing] = useState<{ deviceId: string; syncId: string }>();
  const [open, setOpen] = useState<string>();
  const catalog = useApi<{ platforms: PlatformDescriptor[] }>("/api/v1/device-platforms");
  const sync = useAction();
  const unlink = useAction();
  const reload = list.reload;
  const pulls = (platform: string) => catalog.data?.platforms.some((p) => p.kind === platform && p.pulls) ?? false;
  const synced = useCallback(() => reload(), [reload]);

  function syncNow(d: PatientDevice) {
    void sync.run(async () => {
      const started = await api<{ sync_id: string }>(`/api/v1/devices/${encodeURIComponent(d.device_id)}/sync`, { method: "POST", body: {} });
      setSyncing({ deviceId: d.device_id, syncId: started.sync_id });
    });
  }

  function unlinkDevice(d: PatientDevice) {
    if (!window.confirm(`Unlink "${d.name}" from the patient? Its readings stay; new ones are no longer taken.`)) return;
    void unlink.run(async () => {
      await api(`/api/v1/patients/${encodeURIComponent(patientId)}/devices/${encodeURIComponent(d.device_id)}`, { method: "DELETE" });
      reload();
    });
  }

  if (list.error) return <ErrorMessage error={list.error} />;
  if (!list.data || (catalog.loading && !catalog.data)) return <Loading what="the patient's devices" />;
  const linkForm = can("fhir:write") && catalog.data && <LinkDevice patientId={patientId} platforms={catalog.data.platforms} onLinked={reload} />;
  if (list.data.total_count === 0)
    return (
      <>
        <EmptyState title="No devices linked">
          <p>Link one below, or through the platform's authorization (POST /api/v1/device-platforms/&#123;kind&#125;/authorizations); readings posted for a device appear here.</p>
        </EmptyState>
        {linkForm}
      </>
    );
  return (
    <>
      {sync.failure && <ErrorMessage error={sync.failure} />}
      {unlink.failure && <ErrorMessage error={unlink.failure} />}
      <ul className="device-list">
        {list.data.devices.map((d) => (
          <li key={d.device_id} className="device-panel">
            <h3>{d.name}</h3>
            <p>
              {d.platform} · <span className={`badge ${d.status.toLowerCase()}`}>{d.status}</span> · last sync {d.last_sync_at ? new Date(d.last_sync_at).toLocaleString() : "never"} · <code>{d.device_id}</code>
            </p>
            <div className="actions">
              {can("devices:sync") && d.status === "active" && pulls(d.platform) && (
                <button type="button" disabled={sync.busy} onClick={() => syncNow(d)} aria-label={`Sync now ${d.name}`}>
                  Sync now
                </button>
              )}
              {can("devices:sync") && d.status === "active" && catalog.data && !pulls(d.platform) && <span className="muted">Push only: readings arrive from the device</span>}
              {can("fhir:write") && d.status === "active" && (
                <button type="button" disabled={unlink.busy} onClick={() => unlinkDevice(d)} aria-label={`Unlink ${d.name}`}>
                  Unlink
                </button>
              )}
              <button type="button" aria-expanded={open === d.device_id} onClick={() => setOpen(open === d.device_id ? undefined : d.device_id)}>
                Alert rules
              </button>
            </div>
            {syncing?.deviceId === d.device_id && <SyncProgress syncId={syncing.syncId} onFinished={synced} />}
            {open === d.device_id && <AlertRules patientId={patientId} deviceId={d.device_id} />}
          </li>
        ))}
      </ul>
      <Pager label="Devices" offset={offset} total={list.data.total_count} onChange={setOffset} />
      {linkForm}
    </>
  );
}
