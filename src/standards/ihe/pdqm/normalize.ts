// Normalised forms of demographics for matching: names without case, accents or punctuation
// (digits kept: they tell generated and test identities apart) and with their Double Metaphone codes, dates split into parts, phone numbers as their last
// ten digits, e-mail addresses lower-cased, postal codes and address lines compacted.
import { doubleMetaphone } from "double-metaphone";

type HumanName = { family?: string; given?: string[]; text?: string; use?: string };
type ContactPoint = { system?: string; value?: string };
type Address = { line?: string[]; city?: string; postalCode?: string; country?: string };
type Identifier = { system?: string; value?: string };

export interface Demographics {
  identifiers: { system: string; value: string }[];
  families: string[];
  givens: string[];
  birthDate?: string;
  gender?: string;
  telecoms: string[];
  addresses: { line: string; city: string; postal: string }[];
}

const compact = (s: string) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]/g, "");

/** Lower case, accents and punctuation removed, letters and digits kept ("O'Brien-Smith" → "obriensmith", "Test-07" → "test07"). */
export const normName = compact;

/** A phone number's last ten digits (country prefixes and formatting vary); an e-mail lower-cased. */
export function normTelecom(c: ContactPoint): string | undefined {
  if (!c.value) return undefined;
  if (c.system === "email") return c.value.trim().toLowerCase();
  const digits = c.value.replace(/\D/g, "");
  return digits.length >= 6 ? digits.slice(-10) : undefined;
}

/** The Double Metaphone codes of a normalised name (primary and alternate). */
export function phonetic(name: string): [string, string] {
  const [a, b] = doubleMetaphone(name);
  return [a, b];
}

/** What the matcher compares, from a Patient resource. */
export function demographicsOf(patient: Record<string, unknown>): Demographics {
  const names = (patient.name as HumanName[] | undefined) ?? [];
  const families = names.flatMap((n) => (n.family ? [normName(n.family)] : [])).filter(Boolean);
  const givens = names.flatMap((n) => n.given ?? []).map(normName).filter(Boolean);
  return {
    identifiers: ((patient.identifier as Identifier[] | undefined) ?? []).flatMap((i) => (i.system && i.value ? [{ system: i.system, value: i.value.trim() }] : [])),
    families,
    givens,
    birthDate: typeof patient.birthDate === "string" ? patient.birthDate : undefined,
    gender: typeof patient.gender === "string" && patient.gender !== "unknown" ? patient.gender : undefined,
    telecoms: ((patient.telecom as ContactPoint[] | undefined) ?? []).flatMap((t) => normTelecom(t) ?? []),
    addresses: ((patient.address as Address[] | undefined) ?? []).map((a) => ({ line: compact((a.line ?? []).join(" ")), city: compact(a.city ?? ""), postal: compact(a.postalCode ?? "") })),
  };
}
