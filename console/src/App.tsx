// Routes of the console. Pages past the first load lazily, so the first route stays small; a page
// the role may not use shows "not allowed" (and its API answers 403 anyway). Accepting an
// invitation is the one page reached without a session; every other route signs in first. Every
// route's path comes from src/main/console-routes.ts, the list the Worker serves the console's page for.
import { lazy, type ReactNode, Suspense, useEffect } from "react";
import { Route, Switch } from "wouter";
import { CONSOLE_ROUTES } from "../../src/main/console-routes";
import { Layout } from "./components/Layout";
import { Loading } from "./components/States";
import { returnTarget } from "./lib/return-to";
import { SessionProvider, useSession } from "./lib/session";
import { NotAllowed, NotFound } from "./pages/NotFound";
import { Overview } from "./pages/Overview";
import { SignIn } from "./pages/SignIn";

const Pipelines = lazy(() => import("./pages/Pipelines").then((m) => ({ default: m.Pipelines })));
const PipelineDetail = lazy(() => import("./pages/PipelineDetail").then((m) => ({ default: m.PipelineDetail })));
const PipelineEditor = lazy(() => import("./pages/PipelineEditor").then((m) => ({ default: m.PipelineEditor })));
const Channels = lazy(() => import("./pages/Channels").then((m) => ({ default: m.Channels })));
const Executions = lazy(() => import("./pages/Executions").then((m) => ({ default: m.Executions })));
const ExecutionDetail = lazy(() => import("./pages/ExecutionDetail").then((m) => ({ default: m.ExecutionDetail })));
const StepDebugger = lazy(() => import("./pages/StepDebugger").then((m) => ({ default: m.StepDebugger })));
const Messages = lazy(() => import("./pages/Messages").then((m) => ({ default: m.Messages })));
const MessageDetail = lazy(() => import("./pages/MessageDetail").then((m) => ({ default: m.MessageDetail })));
const Agents = lazy(() => import("./pages/Agents").then((m) => ({ default: m.Agents })));
const AgentDetail = lazy(() => import("./pages/AgentDetail").then((m) => ({ default: m.AgentDetail })));
const Devices = lazy(() => import("./pages/Devices").then((m) => ({ default: m.Devices })));
const Patients = lazy(() => import("./pages/Patients").then((m) => ({ default: m.Patients })));
const PatientDetail = lazy(() => import("./pages/PatientDetail").then((m) => ({ default: m.PatientDetail })));
const Connectors = lazy(() => import("./pages/Connectors").then((m) => ({ default: m.Connectors })));
const Organization = lazy(() => import("./pages/Organization").then((m) => ({ default: m.Organization })));
const AuditLog = lazy(() => import("./pages/AuditLog").then((m) => ({ default: m.AuditLog })));
const ApiKeys = lazy(() => import("./pages/ApiKeys").then((m) => ({ default: m.ApiKeys })));
const FhirBrowser = lazy(() => import("./pages/FhirBrowser").then((m) => ({ default: m.FhirBrowser })));
const Exports = lazy(() => import("./pages/Exports").then((m) => ({ default: m.Exports })));
const Destinations = lazy(() => import("./pages/Destinations").then((m) => ({ default: m.Destinations })));
const DestinationDetail = lazy(() => import("./pages/DestinationDetail").then((m) => ({ default: m.DestinationDetail })));
const DestinationForm = lazy(() => import("./pages/DestinationForm").then((m) => ({ default: m.DestinationForm })));
const DestinationMessage = lazy(() => import("./pages/DestinationMessage").then((m) => ({ default: m.DestinationMessage })));
const Bridges = lazy(() => import("./pages/Bridges").then((m) => ({ default: m.Bridges })));
const Users = lazy(() => import("./pages/Users").then((m) => ({ default: m.Users })));
const Applications = lazy(() => import("./pages/Applications").then((m) => ({ default: m.Applications })));
const Account = lazy(() => import("./pages/Account").then((m) => ({ default: m.Account })));
const AccessPolicies = lazy(() => import("./pages/AccessPolicies").then((m) => ({ default: m.AccessPolicies })));
const Subscriptions = lazy(() => import("./pages/Subscriptions").then((m) => ({ default: m.Subscriptions })));
const SubscriptionDetail = lazy(() => import("./pages/SubscriptionDetail").then((m) => ({ default: m.SubscriptionDetail })));
const Webhooks = lazy(() => import("./pages/Webhooks").then((m) => ({ default: m.Webhooks })));
const WebhookDetail = lazy(() => import("./pages/WebhookDetail").then((m) => ({ default: m.WebhookDetail })));
const AcceptInvitation = lazy(() => import("./pages/AcceptInvitation").then((m) => ({ default: m.AcceptInvitation })));
const FhirResource = lazy(() => import("./pages/FhirResource").then((m) => ({ default: m.FhirResource })));

/** A path segment the router has passed through decodeURI: reserved characters (%3A, %2F) are still escaped. */
function pathParam(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function Guarded({ needs, what, children }: { needs: string; what: string; children: ReactNode }) {
  const { can } = useSession();
  return can(needs) ? children : <NotAllowed what={what} />;
}

function Console() {
  const { session } = useSession();
  return (
    <Switch>
      <Route path={CONSOLE_ROUTES.acceptInvitation}>
        <Suspense fallback={<Loading what="the page" />}>
          <AcceptInvitation />
        </Suspense>
      </Route>
      <Route>{session ? <SignedIn /> : <SignIn />}</Route>
    </Switch>
  );
}

function SignedIn() {
  // An app's authorization request sent the person here to sign in first: back to its consent screen.
  const back = returnTarget(window.location.search);
  useEffect(() => {
    if (back) window.location.replace(back);
  }, [back]);
  if (back) return <Loading what="the app's authorization" />;
  return (
    <Layout>
      <Suspense fallback={<Loading what="the page" />}>
        <Switch>
          <Route path={CONSOLE_ROUTES.overview} component={Overview} />
          <Route path={CONSOLE_ROUTES.pipelines}>
            <Guarded needs="pipelines:read" what="read pipelines">
              <Pipelines />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.newPipeline}>
            <Guarded needs="pipelines:manage" what="create pipelines">
              <PipelineEditor id="new" />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.editPipeline}>
            {(params) => (
              <Guarded needs="pipelines:read" what="read pipelines">
                <PipelineEditor id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.pipeline}>
            {(params) => (
              <Guarded needs="pipelines:read" what="read pipelines">
                <PipelineDetail id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.executions}>
            <Guarded needs="pipelines:read" what="read executions">
              <Executions />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.stepDebugger}>
            <Guarded needs="pipelines:execute" what="run pipelines step by step">
              <StepDebugger />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.execution}>
            {(params) => (
              <Guarded needs="pipelines:read" what="read executions">
                <ExecutionDetail id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.messages}>
            <Guarded needs="messages:read" what="read messages">
              <Messages />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.channels}>
            <Guarded needs="messages:read" what="read messages">
              <Channels />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.message}>
            {(params) => (
              <Guarded needs="messages:read" what="read messages">
                <MessageDetail id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.agents}>
            <Guarded needs="agents:read" what="read agents">
              <Agents />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.agent}>
            {(params) => (
              <Guarded needs="agents:read" what="read agents">
                <AgentDetail id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.devices}>
            <Guarded needs="fhir:read" what="see devices">
              <Devices />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.patients}>
            <Guarded needs="fhir:read" what="see patients">
              <Patients />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.patient}>
            {(params) => (
              <Guarded needs="fhir:read" what="see patients">
                <PatientDetail id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.apiKeys}>
            <Guarded needs="keys:manage" what="manage API keys">
              <ApiKeys />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.connectors}>
            <Guarded needs="connectors:manage" what="manage connectors">
              <Connectors />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.organization}>
            <Guarded needs="org:read" what="see the organization">
              <Organization />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.auditLog}>
            <Guarded needs="audit:read" what="read the audit log">
              <AuditLog />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.fhirBrowser}>
            <Guarded needs="fhir:read" what="read FHIR resources">
              <FhirBrowser />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.fhirType}>
            {(params) => (
              <Guarded needs="fhir:read" what="read FHIR resources">
                <FhirBrowser type={params.type} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.fhirResource}>
            {(params) => (
              <Guarded needs="fhir:read" what="read FHIR resources">
                <FhirResource key={`${params.type}/${params.id}`} type={params.type} id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.fhirVersion}>
            {(params) => (
              <Guarded needs="fhir:read" what="read FHIR resources">
                <FhirResource key={`${params.type}/${params.id}/${params.vid}`} type={params.type} id={params.id} vid={params.vid} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.exports}>
            <Guarded needs="export:run" what="run Bulk Data exports">
              <Exports />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.destinations}>
            <Guarded needs="messages:read" what="see destinations">
              <Destinations />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.newDestination}>
            <Guarded needs="connectors:manage" what="create destinations">
              <DestinationForm />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.editDestination}>
            {(params) => (
              <Guarded needs="connectors:manage" what="change destinations">
                <DestinationForm id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.destinationMessage}>
            {(params) => (
              <Guarded needs="messages:read" what="see destinations">
                <DestinationMessage key={`${params.id}/${params.message}`} destinationId={params.id} messageId={pathParam(params.message)} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.destination}>
            {(params) => (
              <Guarded needs="messages:read" what="see destinations">
                <DestinationDetail key={params.id} id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.bridges}>
            <Guarded needs="org:read" what="see bridges">
              <Bridges />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.subscriptions}>
            <Guarded needs="messages:read" what="see subscriptions">
              <Subscriptions />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.subscription}>
            {(params) => (
              <Guarded needs="messages:read" what="see subscriptions">
                <SubscriptionDetail key={params.id} id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.webhooks}>
            <Guarded needs="webhooks:manage" what="manage event webhooks">
              <Webhooks />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.webhook}>
            {(params) => (
              <Guarded needs="webhooks:manage" what="manage event webhooks">
                <WebhookDetail key={params.id} id={params.id} />
              </Guarded>
            )}
          </Route>
          <Route path={CONSOLE_ROUTES.users}>
            <Guarded needs="users:manage" what="manage users">
              <Users />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.applications}>
            <Guarded needs="clients:manage" what="manage client applications">
              <Applications />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.accessPolicies}>
            <Guarded needs="policies:manage" what="manage access policies">
              <AccessPolicies />
            </Guarded>
          </Route>
          <Route path={CONSOLE_ROUTES.account} component={Account} />
          <Route component={NotFound} />
        </Switch>
      </Suspense>
    </Layout>
  );
}

export function App() {
  return (
    <SessionProvider loading={<Loading what="the console" />}>
      <Console />
    </SessionProvider>
  );
}
