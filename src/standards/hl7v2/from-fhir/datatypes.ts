// FHIR data types → HL7 v2 data types, the converter's readers (convert/datatypes.ts,
// convert/people.ts) run backwards: Identifier → CX/EI, CodeableConcept → CWE, HumanName
// → XPN, Address → XAD, ContactPoint → XTN, and the resources a field only names
// (Practitioner → XCN, Organization → XON/HD, Location → PL). Each returns undefined
// when nothing is there to write.

import type { Resource } from "../../../platform/fhir-resource";
import type { EncodeContext } from "./context";
import { type Json, list, obj, strings, text } from "./input";
import type { Hd } from "./systems";
import { ADDRESS_TYPE_CODE, ADDRESS_USE_CODE, NAME_TYPE, TELECOM_EQUIPMENT, TELECOM_USE_CODE } from "./vocab";
import { type Comp, hl7DateTime, type Rep } from "./writer";

/** Components (or subcomponents) from sparse positions: index 0 is part 1. */
type Parts = Comp[];

/** HD as the subcomponents of one component (CX.4, XCN.9, PL.4...). */
export const hdComp = (hd: Hd | undefined): Comp => (hd ? [hd.namespace, hd.universalId, hd.universalIdType] : undefined);

/** HD as the components of a field (MSH-3 to MSH-6). */
export const hdRep = (hd: Hd | undefined): Rep | undefined => (hd ? [hd.namespace, hd.universalId, hd.universalIdType] : undefined);

/** A FHIR date/dateTime/instant as DTM; a value that is not one is left out with a warning. */
export function dtm(ctx: EncodeContext, value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  const out = hl7DateTime(value);
  if (out === undefined) ctx.warn(`${where}: ${JSON.stringify(value)} is not a FHIR date/time, left out`);
  return out;
}

/** A FHIR date/dateTime as DT (the date part). */
export function dt(ctx: EncodeContext, value: unknown, where: string): string | undefined {
  return dtm(ctx, value, where)?.slice(0, 8);
}

/** The code of the first coding of a CodeableConcept (of one system when asked). */
export function codeOf(concept: unknown, system?: string): string | undefined {
  const codings = list(obj(concept)?.coding);
  return text((system ? codings.find((c) => c.system === system) : codings[0])?.code);
}

/** Writes values into slots in order; what does not fit is joined into the last slot. */
function fill(parts: Parts, slots: number[], values: string[], joiner = " "): void {
  if (values.length === 0 || slots.length === 0) return;
  slots.forEach((slot, i) => {
    parts[slot] = i === slots.length - 1 ? values.slice(i).join(joiner) || undefined : values[i];
  });
}

// ---------------------------------------------------------------- identifiers

function assignerName(id: Json): string | undefined {
  return text(obj(id.assigner)?.display);
}

/** Identifier → CX: value, assigning authority from the system, type code, effective dates. */
export function cx(ctx: EncodeContext, id: Json | undefined): Rep | undefined {
  const value = text(id?.value);
  if (!id || !value) return undefined;
  const period = obj(id.period);
  const parts: Parts = [value];
  parts[3] = hdComp(ctx.systems.authority(text(id.system), assignerName(id)));
  parts[4] = codeOf(id.type);
  parts[6] = dt(ctx, period?.start, "Identifier.period.start");
  parts[7] = dt(ctx, period?.end, "Identifier.period.end");
  return parts;
}

/** Identifier → EI: value ^ namespace ^ universal id ^ universal id type. */
export function ei(ctx: EncodeContext, id: Json | undefined): Rep | undefined {
  const value = text(id?.value);
  if (!id || !value) return undefined;
  const hd = ctx.systems.authority(text(id.system), assignerName(id));
  return [value, hd?.namespace, hd?.universalId, hd?.universalIdType];
}

/** The identifier of a list whose type (v2-0203) is one of the codes. */
export function identifierTyped(ids: unknown, ...codes: string[]): Json | undefined {
  return list(ids).find((i) => {
    const c = codeOf(i.type);
    return c !== undefined && codes.includes(c);
  });
}

// ---------------------------------------------------------------- codes

export interface CweOptions {
  /** A system the field's table stands for besides its own (v3 ObservationInterpretation for table 0078). */
  alias?: { system: string; table: string };
}

/** CodeableConcept → CWE (CE before v2.5): up to two codings (three from v2.7), the text in CWE.9. */
export function cwe(ctx: EncodeContext, concept: unknown, options: CweOptions = {}): Rep | undefined {
  const c = obj(concept);
  if (!c) return undefined;
  const codings = list(c.coding).filter((x) => text(x.code));
  const parts: Parts = [];
  const max = ctx.atLeast("2.7") ? 3 : 2;
  const at: [number, number][] = [
    [0, 6],
    [3, 7],
    [9, 12],
  ];
  codings.slice(0, max).forEach((coding, i) => {
    const [p, v] = at[i]!;
    const system = text(coding.system);
    parts[p] = text(coding.code);
    parts[p + 1] = text(coding.display);
    parts[p + 2] = options.alias && system === options.alias.system ? `HL7${options.alias.table}` : ctx.systems.codingSystem(system);
    if (ctx.atLeast("2.5")) parts[v] = text(coding.version);
  });
  if (codings.length > max) ctx.warn(`a CodeableConcept with ${codings.length} codings: HL7 v${ctx.version} CWE carries ${max}`);
  const t = text(c.text);
  if (t && codings.length === 0) parts[1] = t;
  else if (t && ctx.atLeast("2.5")) parts[8] = t;
  return parts.length ? parts : undefined;
}

// ---------------------------------------------------------------- names, addresses, telecom

/** HumanName → XPN. Given names past the second go together into XPN.3; suffixes fill XPN.4, XPN.6, XPN.14. */
export function xpn(ctx: EncodeContext, name: Json | undefined): Rep | undefined {
  if (!name) return undefined;
  const family = text(name.family);
  const given = strings(name.given);
  if (!family && given.length === 0) {
    if (text(name.text)) ctx.warn(`a name with only text (${JSON.stringify(name.text)}): XPN has no place for it, left out`);
    return undefined;
  }
  const parts: Parts = [family, given[0], given.slice(1).join(" ") || undefined];
  parts[4] = strings(name.prefix).join(" ") || undefined;
  fill(parts, ctx.atLeast("2.5") ? [3, 5, 13] : [3, 5], strings(name.suffix));
  const use = text(name.use);
  parts[6] = use ? NAME_TYPE[use] : undefined;
  const period = obj(name.period);
  const start = dtm(ctx, period?.start, "HumanName.period.start");
  const end = dtm(ctx, period?.end, "HumanName.period.end");
  if (ctx.atLeast("2.5")) {
    parts[11] = start;
    parts[12] = end;
  } else if (start || end) parts[9] = [start, end];
  return parts;
}

/** Address.line slots, in the order the converter reads them back: SAD.1, SAD.2, SAD.3, XAD.2, XAD.19. */
const LINE_SLOTS = ["sad1", "sad2", "sad3", "xad2", "xad19"] as const;
/** Which slots to use first: street address, other designation, addressee (v2.6+), then SAD parts. */
const LINE_PREFERENCE = ["sad1", "xad2", "xad19", "sad2", "sad3"] as const;

/** Address → XAD. */
export function xad(ctx: EncodeContext, address: Json | undefined): Rep | undefined {
  if (!address) return undefined;
  const lines = strings(address.line);
  const available = LINE_PREFERENCE.filter((s) => s !== "xad19" || ctx.atLeast("2.6"));
  const chosen = new Set(available.slice(0, Math.max(1, lines.length)));
  const slots = LINE_SLOTS.filter((s) => chosen.has(s));
  const byslot: Record<string, string | undefined> = {};
  slots.forEach((s, i) => {
    byslot[s] = i === slots.length - 1 ? lines.slice(i).join(", ") || undefined : lines[i];
  });
  const parts: Parts = [];
  parts[0] = byslot.sad2 || byslot.sad3 ? [byslot.sad1, byslot.sad2, byslot.sad3] : byslot.sad1;
  parts[1] = byslot.xad2;
  parts[2] = text(address.city);
  parts[3] = text(address.state);
  parts[4] = text(address.postalCode);
  parts[5] = text(address.country);
  const use = text(address.use);
  parts[6] = (use && ADDRESS_USE_CODE[use]) || (text(address.type) ? ADDRESS_TYPE_CODE[text(address.type)!] : undefined);
  parts[8] = text(address.district);
  parts[18] = byslot.xad19;
  const period = obj(address.period);
  const start = dtm(ctx, period?.start, "Address.period.start");
  const end = dtm(ctx, period?.end, "Address.period.end");
  if (ctx.atLeast("2.5")) {
    parts[12] = start;
    parts[13] = end;
  } else if (start || end) parts[11] = [start, end];
  if (!parts.some((p) => p !== undefined && p !== "")) {
    if (text(address.text)) ctx.warn(`an address with only text (${JSON.stringify(address.text)}): XAD has no place for it, left out`);
    return undefined;
  }
  return parts;
}

/** ContactPoint → XTN: the number in XTN.1 (and XTN.12 from v2.5), an e-mail address in XTN.4. */
export function xtn(ctx: EncodeContext, contact: Json | undefined): Rep | undefined {
  const value = text(contact?.value);
  if (!contact || !value) return undefined;
  const system = text(contact.system);
  const use = text(contact.use);
  const parts: Parts = [];
  if (system === "email") {
    parts[1] = "NET";
    parts[2] = "Internet";
    parts[3] = value;
  } else {
    parts[0] = value;
    parts[1] = use ? TELECOM_USE_CODE[use] : undefined;
    parts[2] = use === "mobile" ? "CP" : system ? TELECOM_EQUIPMENT[system] : undefined;
    if (ctx.atLeast("2.5")) parts[11] = value;
  }
  if (ctx.atLeast("2.6")) {
    const period = obj(contact.period);
    parts[12] = dtm(ctx, period?.start, "ContactPoint.period.start");
    parts[13] = dtm(ctx, period?.end, "ContactPoint.period.end");
    parts[17] = typeof contact.rank === "number" ? contact.rank : undefined;
  }
  return parts;
}

// ---------------------------------------------------------------- named resources

/** The Practitioner a reference names (through a PractitionerRole too). */
function practitionerOf(ctx: EncodeContext, ref: unknown): Resource | undefined {
  const r = ctx.input.resolve(ref);
  if (r?.resourceType === "PractitionerRole") return ctx.input.resolve(r.practitioner, "Practitioner");
  return r?.resourceType === "Practitioner" ? r : undefined;
}

/** A person's id for XCN/CNN: the first identifier that is not one the converter made from a name. */
function personId(ctx: EncodeContext, p: Json): Json | undefined {
  return list(p.identifier).find((i) => text(i.value) && !ctx.systems.isKind("practitioner-name", text(i.system)));
}

/** Reference to a Practitioner → XCN. A reference the input cannot resolve gives only its logical identifier. */
export function xcn(ctx: EncodeContext, ref: unknown): Rep | undefined {
  const p = practitionerOf(ctx, ref);
  if (!p) {
    const logical = obj(obj(ref)?.identifier);
    if (logical) {
      const parts: Parts = [text(logical.value)];
      parts[8] = hdComp(ctx.systems.authority(text(logical.system)));
      return parts;
    }
    if (text(obj(ref)?.display)) ctx.warn(`practitioner ${JSON.stringify(obj(ref)?.display)} is not in the input: only its display is known, left out`);
    return undefined;
  }
  ctx.input.use(p);
  const id = personId(ctx, p);
  const name = list(p.name)[0] ?? {};
  const given = strings(name.given);
  const suffix = strings(name.suffix);
  const parts: Parts = [text(id?.value), text(name.family), given[0], given.slice(1).join(" ") || undefined, suffix[0], strings(name.prefix).join(" ") || undefined, suffix.slice(1).join(" ") || undefined];
  parts[8] = id ? hdComp(ctx.systems.authority(text(id.system))) : undefined;
  parts[9] = text(name.use) ? NAME_TYPE[text(name.use)!] : undefined;
  parts[12] = id ? codeOf(id.type) : undefined;
  return parts.some((x) => x !== undefined) ? parts : undefined;
}

/** Reference to a Practitioner → CNN, as the subcomponents of one component (OBR-32 NDL.1). */
export function cnn(ctx: EncodeContext, ref: unknown): Comp | undefined {
  const x = xcn(ctx, ref);
  if (!x) return undefined;
  const hd = x[8] as (string | undefined)[] | undefined;
  return [x[0] as string, x[1] as string, x[2] as string, x[3] as string, x[4] as string, x[5] as string, x[6] as string, undefined, hd?.[0], hd?.[1], hd?.[2]];
}

/** HD of an Organization the converter made from an HD (MSH-4, PL.4), or of any Organization by name. */
export function organizationHd(ctx: EncodeContext, org: Json | undefined): Hd | undefined {
  if (!org) return undefined;
  const name = text(org.name);
  const uri = list(org.identifier).find((i) => i.system === "urn:ietf:rfc:3986" && text(i.value));
  if (uri) {
    const hd = ctx.systems.authority(text(uri.value));
    if (hd?.universalId) return { namespace: name !== hd.universalId ? name : undefined, universalId: hd.universalId, universalIdType: hd.universalIdType };
    if (hd?.namespace) return { namespace: hd.namespace };
  }
  return name ? { namespace: name } : undefined;
}

/** Reference to an Organization → XON: name, id (XON.10, XON.3 before v2.5), assigning authority. */
export function xon(ctx: EncodeContext, ref: unknown): Rep | undefined {
  const org = ctx.input.use(ctx.input.resolve(ref, "Organization"));
  if (!org) return undefined;
  const id = list(org.identifier).find((i) => text(i.value) && !ctx.systems.isKind("organization-name", text(i.system)) && i.system !== "urn:ietf:rfc:3986");
  const parts: Parts = [text(org.name)];
  if (id) {
    parts[ctx.atLeast("2.5") ? 9 : 2] = text(id.value);
    parts[5] = hdComp(ctx.systems.authority(text(id.system)));
  }
  return parts.some((x) => x !== undefined) ? parts : undefined;
}

/** The converter's name for a location's parts (facility / building / floor / point of care / room / bed). */
function locationName(parts: string[]): string {
  const [poc, room, bed, facility, building, floor] = parts;
  return [facility, building, floor, poc, room, bed].filter(Boolean).join(" / ");
}

/**
 * Reference to a Location → PL. A Location the converter made keeps its parts in its
 * identifier (point of care^room^bed^facility^building^floor); any other is written as a
 * point of care named by Location.name.
 */
export function pl(ctx: EncodeContext, ref: unknown): Rep | undefined {
  const loc = ctx.input.use(ctx.input.resolve(ref, "Location"));
  if (!loc) return undefined;
  const org = ctx.input.use(ctx.input.resolve(loc.managingOrganization, "Organization"));
  const name = text(loc.name);
  const idValue = text(list(loc.identifier)[0]?.value);
  const split = idValue?.split("^");
  const parts: Parts = [];
  if (split && split.length <= 6 && name && locationName(split) === name) {
    const [poc, room, bed, facility, building, floor] = split.map((s) => s || undefined);
    parts.push(poc, room, bed, hdComp(organizationHd(ctx, org) ?? (facility ? { namespace: facility } : undefined)));
    parts[6] = building;
    parts[7] = floor;
  } else {
    parts[0] = name ?? idValue;
    parts[3] = hdComp(organizationHd(ctx, org));
  }
  parts[8] = text(loc.description);
  return parts.some((x) => x !== undefined) ? parts : undefined;
}
