// The registries' lists, derived once from the plug-ins (plugins.ts): the node families, the
// connector types, the inbound protocols and their aliases, the FHIR store's extensions, what
// the copilot checks with and the device platforms. Built at module load, once per isolate.
import { InboundAdapters } from "../features/inbound/adapters";
import type { ProtocolAlias } from "../features/inbound";
import type { CopilotPorts } from "../features/copilot/ports";
import type { ConnectorType } from "../features/connectors";
import { type AnyOperation, type FhirExtensions, OperationRegistry } from "../features/fhir";
import type { NodeType } from "../features/pipelines";
import type { DevicePlatform } from "../features/devices/platforms/platform";
import type { FhirContribution, Plugin } from "../standards/plugin";
import { PLUGINS } from "./plugins";

const all = <K extends keyof FhirContribution>(plugins: readonly Plugin[], key: K) => plugins.flatMap((p) => (p.fhir?.[key] ?? []) as NonNullable<FhirContribution[K]>[number][]);

export const NODE_FAMILIES: readonly (readonly NodeType<unknown>[])[] = PLUGINS.flatMap((p) => (p.nodes ? [p.nodes] : []));

/** The wearable and device platforms the service syncs from and takes webhooks, OAuth links and uploads of. */
export const DEVICE_PLATFORMS: readonly DevicePlatform[] = PLUGINS.flatMap((p) => (p.devicePlatform ? [p.devicePlatform] : []));

export const CONNECTOR_TYPE_CATALOG: readonly ConnectorType[] = PLUGINS.flatMap((p) => p.connectorTypes ?? []);

export const inboundAdapters = new InboundAdapters(PLUGINS.flatMap((p) => (p.inbound ? [p.inbound.adapter] : [])));
export const INBOUND_ALIASES: readonly ProtocolAlias[] = PLUGINS.flatMap((p) => p.inbound?.aliases ?? []);

/** The FHIR operations of every plug-in (tests add their own to these). */
export const FHIR_OPERATIONS: readonly AnyOperation[] = all(PLUGINS, "operations");

/** What implementation guides add to the FHIR store and its routes, handed to every store and router. */
export function fhirExtensionsOf(plugins: readonly Plugin[], operations: readonly AnyOperation[] = all(plugins, "operations")): FhirExtensions {
  return {
    searchParameters: all(plugins, "searchParameters"),
    searchRefinements: all(plugins, "searchRefinements"),
    writeChecks: all(plugins, "writeChecks"),
    bundleChecks: all(plugins, "bundleChecks"),
    retrieveChecks: all(plugins, "retrieveChecks"),
    guideAudits: all(plugins, "guideAudits"),
    guideActors: all(plugins, "guideActors"),
    operations: new OperationRegistry(operations),
  };
}

export const FHIR_EXTENSIONS: FhirExtensions = fhirExtensionsOf(PLUGINS);

const hl7FieldPaths = PLUGINS.find((p) => p.copilot?.hl7)?.copilot?.hl7;
if (!hl7FieldPaths) throw new Error("No plug-in gives the copilot HL7 v2 field paths");
export const COPILOT_PORTS: CopilotPorts = { hl7: hl7FieldPaths };
