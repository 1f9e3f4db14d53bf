// FHIR browser, search (`/fhir-browser`, `/fhir-browser/<type>?<parameters>`): any type the CapabilityStatement
// lists, searched with the URL's parameters as the FHIR API takes them, paged by the Bundle's
// next/previous links (which become console URLs, so each page links too); "New <type>" creates one
// through the validating editor.
import { useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { consolePathOf, resourcesOf, useCapabilities } from "../fhir-browser/capabilities";
import { describeResource } from "../fhir-browser/describe";
import { ResourceEditor } from "../fhir-browser/ResourceEditor";
import { SearchForm } from "../fhir-browser/SearchForm";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { type Bundle, fhirBase, matches } from "../patients/fhir";
import { LinkPager } from "../patients/LinkPager";

interface AnyResource {
  resourceType: string;
  id: string;
  meta?: { lastUpdated?: string; versionId?: string };
  [k: string]: unknown;
}

export function FhirBrowser({ type }: { type?: string }) {
  const { session, can } = useSession();
  const orgId = session?.organization.id ?? "";
  const [creating, setCreating] = useState(false);
  const search = useSearch();
  const [, navigate] = useLocation();
  const capabilities = useCapabilities();
  const path = type ? `${fhirBase(orgId)}/${encodeURIComponent(type)}${search ? `?${search}` : ""}` : null;
  const result = useApi<Bundle<AnyResource>>(path);
  const resources = resourcesOf(capabilities.data);

  if (capabilities.error) return <ErrorMessage error={capabilities.error} />;
  if (!capabilities.data) return <Loading what="the server's resource types" />;
  const bundle = result.data;
  const found = bundle ? matches(bundle) : [];
  return (
    <>
      <h1>FHIR browser</h1>
      <SearchForm key={`${type ?? ""}?${search}`} resources={resources} type={type ?? ""} query={new URLSearchParams(search)} />
      {type && can("fhir:write") && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New {type}
        </button>
      )}
      {type && creating && (
        <ResourceEditor
          key={type}
          base={fhirBase(orgId)}
          type={type}
          initial={JSON.stringify({ resourceType: type }, null, 2)}
          onCancel={() => setCreating(false)}
          onSaved={(r) => navigate(`/fhir-browser/${r.resourceType}/${encodeURIComponent(r.id)}`)}
        />
      )}
      {!type && (
        <EmptyState title="Choose a resource type">
          <p>Pick one of the {resources.length} types this server lists, add search parameters if you like, and search.</p>
        </EmptyState>
      )}
      {result.error && <ErrorMessage error={result.error} />}
      {result.loading && <Loading what={`${type} resources`} />}
      {bundle && !result.loading && found.length === 0 && (
        <EmptyState title={`No ${type} found`}>
          <p>Remove a parameter or widen its value, or create {type} resources through the FHIR API, an HL7 feed or a pipeline.</p>
        </EmptyState>
      )}
      {bundle && !result.loading && found.length > 0 && (
        <>
          {bundle.total !== undefined && <p className="muted">{bundle.total} matching</p>}
          <table>
            <caption className="visually-hidden">{type} search results</caption>
            <TableHead columns={["Resource", "Description", "Version", "Last updated"]} />
            <tbody>
              {found.map((r) => (
                <tr key={`${r.resourceType}/${r.id}`}>
                  <td>
                    <Link href={`/fhir-browser/${r.resourceType}/${encodeURIComponent(r.id)}`}>
                      {r.resourceType}/{r.id}
                    </Link>
                  </td>
                  <td>{describeResource(r)}</td>
                  <td>{r.meta?.versionId ?? "—"}</td>
                  <td>{r.meta?.lastUpdated ? new Date(r.meta.lastUpdated).toLocaleString() : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {bundle && <LinkPager bundle={bundle} label={`${type} results`} onChange={(p) => navigate(consolePathOf(p, orgId))} />}
    </>
  );
}
