// What a plug-in may contribute, in one typed contract: a standard (HL7 v2, X12, DICOMweb), an
// implementation guide (IHE PDQm and MHD, IPS), a feature's own node family or a device platform.
// Each declares itself once, in its own folder (`<folder>/plugin.ts`), and src/main/plugins.ts
// lists it on one line; the registries are built from that list, and no feature names a plug-in.
import type { ConnectorType } from "../features/connectors";
import type { AnyOperation, FhirExtensions } from "../features/fhir";
import type { NodeType } from "../features/pipelines";
import type { InboundAdapter } from "../features/inbound";
import type { ProtocolAlias } from "../features/inbound";
import type { CopilotPorts } from "../features/copilot";
import type { CodeHelpers } from "../features/code";
import type { DevicePlatform } from "../features/devices";

/** What a guide adds to the FHIR store and its routes; operations as a list (src/main/ builds the registry). */
export type FhirContribution = Partial<Omit<FhirExtensions, "operations">> & { readonly operations?: readonly AnyOperation[] };

export interface Plugin {
  /** Its name, for messages and the catalogs' checks. */
  readonly name: string;
  /** A family of pipeline nodes (NodeType contract, features/pipelines/node-type.ts). */
  readonly nodes?: readonly NodeType<unknown>[];
  /** Connector types with their own transport (features/connectors/types.ts). */
  readonly connectorTypes?: readonly ConnectorType[];
  /** An inbound protocol: its adapter, and older fixed endpoints that answer the same. */
  readonly inbound?: { readonly adapter: InboundAdapter; readonly aliases?: readonly ProtocolAlias[] };
  /** SearchParameters, search refinements, write/bundle/retrieve checks, audits, actors and operations. */
  readonly fhir?: FhirContribution;
  /** What the copilot checks with (HL7 v2 field paths). */
  readonly copilot?: Partial<CopilotPorts>;
  /** Pure helpers tenant code reaches under ctx (the codecs: "hl7.parse" is ctx.hl7.parse). */
  readonly codeHelpers?: CodeHelpers;
  /** A wearable or device platform: OAuth, webhooks, sync (features/devices/platforms/platform.ts). */
  readonly devicePlatform?: DevicePlatform;
}
