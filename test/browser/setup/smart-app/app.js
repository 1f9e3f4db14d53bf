// A SMART app as a browser app is written: fhirclient's browser build (window.FHIR, its
// BrowserAdapter, state in sessionStorage). launch.html?iss=&client_id=&scope= starts a standalone
// launch; callback.html completes it and shows the launch patient read through client.request.
const FHIR = window.FHIR;
const status = document.getElementById("status");

function fail(error) {
  status.setAttribute("role", "alert");
  status.dataset.state = "error";
  status.textContent = `Error: ${error?.message ?? String(error)}`;
}

async function launch() {
  const params = new URLSearchParams(location.search);
  await FHIR.oauth2.authorize({
    iss: params.get("iss"),
    clientId: params.get("client_id"),
    scope: params.get("scope"),
    redirectUri: "callback.html",
    pkceMode: "required",
  });
}

async function callback() {
  const client = await FHIR.oauth2.ready();
  const patient = await client.request(`Patient/${client.getPatientId()}`);
  const name = patient.name?.[0] ?? {};
  document.getElementById("patient-name").textContent = `${(name.given ?? []).join(" ")} ${name.family ?? ""}`.trim();
  document.getElementById("patient-id").textContent = patient.id;
  document.getElementById("patient").hidden = false;
  status.dataset.state = "ready";
  status.textContent = `Signed in as ${client.getFhirUser() ?? "unknown"}`;
}

(location.pathname.endsWith("/launch.html") ? launch() : callback()).catch(fail);
