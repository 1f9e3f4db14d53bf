// "Launch app" for the patient open (SMART EHR launch): the organization's launchable apps
// (GET /api/v1/smart/launchable-apps); launching asks the service for a one-time launch bound to
// this patient (POST /api/v1/smart/launches) and opens the app's launch URL (with iss and launch)
// in a new tab, where the app authorizes and the person approves it on the consent screen.
import { useState } from "react";
import { ErrorMessage } from "../components/States";
import { api } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

interface LaunchableApp {
  id: string;
  name: string;
  launch_uri: string;
}

export function LaunchApp({ patientId }: { patientId: string }) {
  const apps = useApi<{ apps: LaunchableApp[] }>("/api/v1/smart/launchable-apps");
  const [chosen, setChosen] = useState("");
  const act = useAction();
  const list = apps.data?.apps ?? [];
  if (!list.length) return null;
  const appId = chosen || list[0]!.id;

  function launch() {
    // Opened before the request answers, so the browser counts it as the click's own window.
    const tab = window.open("about:blank", "_blank");
    // The app gets no handle on the console's window (it is another site).
    if (tab) tab.opener = null;
    void act.run(async () => {
      try {
        const started = await api<{ launch_url: string }>("/api/v1/smart/launches", { method: "POST", body: { client_id: appId, patient: patientId } });
        if (tab) tab.location.href = started.launch_url;
        else window.location.href = started.launch_url;
      } catch (err) {
        tab?.close();
        throw err;
      }
    });
  }

  return (
    <form
      className="inline-form"
      aria-label="Launch an app for this patient"
      onSubmit={(e) => {
        e.preventDefault();
        launch();
      }}
    >
      <label>
        App
        <select name="launch-app" value={appId} onChange={(e) => setChosen(e.target.value)}>
          {list.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" data-action="launch-app" disabled={act.busy}>
        Launch app
      </button>
      {act.failure && <ErrorMessage error={act.failure} />}
    </form>
  );
}
