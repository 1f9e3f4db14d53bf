// FHIR system URIs back to HL7 v2 names: an identifier system to the assigning authority
// (HD) it came from, a code system to the CWE.3 coding-system name. Each rule is the
// converter's rule (convert/datatypes.ts, convert/vocab.ts) read backwards, so that a
// name written here converts back to the same system.

import { systemBaseOf, systemUri } from "../convert/context";
import { ABSOLUTE_URI, CODING_SYSTEMS, OID, UUID } from "../convert/vocab";

export interface Hd {
  namespace?: string;
  universalId?: string;
  universalIdType?: string;
}

export interface SystemOptions {
  /** The converter's systemBase (default urn:hl7v2): systems below it are read back to their names. */
  systemBase?: string;
  /** Assigning authority → identifier system, as given to the converter; read backwards. */
  authorities?: Record<string, string>;
  /** CWE.3 coding-system name → system, as given to the converter; read backwards. */
  codingSystems?: Record<string, string>;
}

const SSN = "http://hl7.org/fhir/sid/us-ssn";
const NPI = "http://hl7.org/fhir/sid/us-npi";
const V2_TABLE = /^http:\/\/terminology\.hl7\.org\/CodeSystem\/v2-(\d{4})$/;

function firstKeys(map: Readonly<Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(map)) if (!out.has(v)) out.set(v, k);
  return out;
}
const CODING_NAMES = firstKeys(CODING_SYSTEMS);

export class SystemNames {
  readonly base: string;
  /** System of identifiers without an authority: the sending facility's (as the converter assumes). */
  readonly facilitySystem: string;
  private readonly authorityNames: Map<string, string>;
  private readonly codingNames: Map<string, string>;

  constructor(options: SystemOptions, sendingFacility: string | undefined) {
    this.base = systemBaseOf(options.systemBase);
    this.facilitySystem = systemUri(this.base, "authority", sendingFacility || "unknown");
    this.authorityNames = firstKeys(options.authorities ?? {});
    this.codingNames = firstKeys(options.codingSystems ?? {});
  }

  /** x when system is the converter's uri(kind, x). */
  below(kind: string, system: string | undefined): string | undefined {
    if (!system) return undefined;
    const prefix = systemUri(this.base, kind, "");
    if (!system.startsWith(prefix) || system.length === prefix.length) return undefined;
    try {
      return decodeURIComponent(system.slice(prefix.length));
    } catch {
      return undefined;
    }
  }

  /** Whether system is the converter's uri(kind) or below it (organization-name, practitioner-name...). */
  isKind(kind: string, system: string | undefined): boolean {
    return !!system && (system === systemUri(this.base, kind) || this.below(kind, system) !== undefined);
  }

  /**
   * Identifiers the converter made up from one message (`message:`), or from the patient and
   * a code (`key:`): they mean nothing to another system, and converting the new message
   * derives them again.
   */
  isDerived(system: string | undefined): boolean {
    if (!system) return false;
    return [systemUri(this.base, "message", ""), systemUri(this.base, "key", "")].some((p) => system.startsWith(p));
  }

  /** The assigning authority (HD) of an identifier system; undefined for the sending facility's own. */
  authority(system: string | undefined, assigner?: string): Hd | undefined {
    if (!system) return assigner ? { namespace: assigner } : undefined;
    if (system === this.facilitySystem && !assigner) return undefined;
    const configured = this.authorityNames.get(system);
    if (configured) return OID.test(configured) ? { namespace: assigner, universalId: configured, universalIdType: "ISO" } : { namespace: configured };
    const local = this.below("authority", system);
    if (local !== undefined) return { namespace: local };
    if (system === SSN) return { namespace: assigner && /^(US)?SSA$/i.test(assigner) ? assigner : "SSA" };
    if (system === NPI) return { namespace: assigner && /^(CMS-)?NPI$/i.test(assigner) ? assigner : "NPI" };
    const [, scheme, id] = /^urn:(oid|uuid):(.+)$/i.exec(system) ?? [];
    if (scheme && id && (OID.test(id) || UUID.test(id))) return { namespace: assigner, universalId: id, universalIdType: scheme.toLowerCase() === "oid" ? "ISO" : "UUID" };
    if (ABSOLUTE_URI.test(system)) return { namespace: assigner, universalId: system, universalIdType: "URI" };
    return { namespace: system };
  }

  /** The CWE.3 name of a code system. */
  codingSystem(system: string | undefined): string | undefined {
    if (!system) return undefined;
    const configured = this.codingNames.get(system);
    if (configured) return configured;
    const table = V2_TABLE.exec(system);
    if (table) return `HL7${table[1]}`;
    const known = CODING_NAMES.get(system);
    if (known) return known;
    const local = this.below("codesystem", system);
    if (local !== undefined) return local;
    const [, , id] = /^urn:(oid|uuid):(.+)$/i.exec(system) ?? [];
    if (id && (OID.test(id) || UUID.test(id))) return id;
    return system;
  }
}
