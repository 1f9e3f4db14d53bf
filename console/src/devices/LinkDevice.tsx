// Links a device to the patient (POST /api/v1/patients/<id>/devices, which creates the FHIR
// Device): a name, the platform from the service's catalog (whether a sync pulls from it is
// said beside each), and the platform's ids for the user and the device.
import { type FormEvent, useState } from "react";
import { ErrorMessage } from "../components/States";
import { api } from "../lib/api";
import { useAction } from "../lib/use-action";
import type { PlatformDescriptor } from "./types";

const label = (p: PlatformDescriptor) => `${p.kind}${p.vendor ? ` (${p.vendor})` : ""}${p.pulls ? "" : " — push only"}`;

export function LinkDevice({ patientId, platforms, onLinked }: { patientId: string; platforms: PlatformDescriptor[]; onLinked(): void }) {
  const [name, setName] = useState("");
  const [platform, setPlatform] = useState(platforms[0]?.kind ?? "");
  const [userId, setUserId] = useState("");
  const [deviceId, setDeviceId] = useState("");
  const link = useAction();

  function submit(e: FormEvent) {
    e.preventDefault();
    void link.run(async () => {
      const body = { name: name.trim(), platform, ...(userId.trim() ? { platform_user_id: userId.trim() } : {}), ...(deviceId.trim() ? { platform_device_id: deviceId.trim() } : {}) };
      await api(`/api/v1/patients/${encodeURIComponent(patientId)}/devices`, { method: "POST", body });
      setName("");
      setUserId("");
      setDeviceId("");
      onLinked();
    });
  }

  return (
    <form className="inline-form" aria-label="Link a device" onSubmit={submit}>
      <label>
        Device name
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label>
        Platform
        <select name="platform" value={platform} onChange={(e) => setPlatform(e.target.value)}>
          {platforms.map((p) => (
            <option key={p.kind} value={p.kind}>
              {label(p)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Platform user id
        <input name="platform_user_id" value={userId} onChange={(e) => setUserId(e.target.value)} maxLength={256} />
      </label>
      <label>
        Platform device id
        <input name="platform_device_id" value={deviceId} onChange={(e) => setDeviceId(e.target.value)} maxLength={256} />
      </label>
      <button type="submit" disabled={link.busy}>
        Link device
      </button>
      {link.failure && <ErrorMessage error={link.failure} />}
    </form>
  );
}
