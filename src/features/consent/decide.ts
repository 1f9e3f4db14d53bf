// The consent decision engine: whether an action on a patient's data is permitted, given the
// patient's Consent resources (FHIR R4) and the organization's default policy. Pure: no I/O,
// so it is unit-tested case by case and benchmarked in-process. The algorithm and its table of
// cases are in docs/consent.md.
import type { Resource } from "../fhir";

export const CONSENT_ACTIONS = ["access", "collect", "use", "disclose", "correct"] as const;
export type ConsentAction = (typeof CONSENT_ACTIONS)[number];
export type DefaultPolicy = "opt-in" | "opt-out";

export interface Coding {
  system?: string;
  code?: string;
  display?: string;
}

/** What is asked: who (actor) wants to do what (action), why (purpose), with which data, when. */
export interface ConsentRequest {
  /** "Patient/<id>" or "<id>". */
  patient: string;
  /** References of the actors (Organization/x, Practitioner/y, Device/agent...); any one matching a provision's actor counts. */
  actors?: string[];
  action: ConsentAction;
  /** Purpose-of-use codes (v3 ActReason: TREAT, HRESCH, ...). */
  purposes?: Coding[];
  data?: {
    /** Resource types (provision.class with system http://hl7.org/fhir/resource-types, or bare codes). */
    resourceTypes?: string[];
    /** Codes of the data (provision.code). */
    codes?: Coding[];
    /** Security labels of the data (provision.securityLabel). */
    securityLabels?: Coding[];
    /** References of the data instances (provision.data.reference). */
    references?: string[];
  };
  /** ISO instant the action happens at; default now. */
  time?: string;
}

export interface ConsentDecision {
  decision: "permit" | "deny";
  /** consent: a Consent decided; default: none applied and the org's default policy did. */
  basis: "consent" | "default";
  /** "Consent/<id>" of the deciding Consent. */
  consent?: string;
  /** FHIRPath-like location of the deciding provision in it, e.g. "provision.provision[1]". */
  provision?: string;
  /** The consents that applied, with what each decided (so a denial shows what it overrode). */
  applied: { consent: string; decision: "permit" | "deny"; provision: string }[];
  reason: string;
}

interface Provision {
  type?: string;
  period?: { start?: string; end?: string };
  actor?: { role?: { coding?: Coding[] }; reference?: { reference?: string } }[];
  action?: { coding?: Coding[] }[];
  securityLabel?: Coding[];
  purpose?: Coding[];
  class?: Coding[];
  code?: { coding?: Coding[] }[];
  data?: { meaning?: string; reference?: { reference?: string } }[];
  provision?: Provision[];
}

const ACTION_SYSTEM = "http://terminology.hl7.org/CodeSystem/consentaction";
const RESOURCE_TYPES_SYSTEM = "http://hl7.org/fhir/resource-types";

const patientRef = (p: string) => (p.includes("/") ? p : `Patient/${p}`);

/** Compares codings: the codes must be equal, and the systems too when both carry one. */
function sameCoding(a: Coding, b: Coding): boolean {
  return !!a.code && a.code === b.code && (!a.system || !b.system || a.system === b.system);
}

const anyCoding = (wanted: Coding[], given: Coding[] | undefined) => !!given?.some((g) => wanted.some((w) => sameCoding(w, g)));

function inPeriod(period: { start?: string; end?: string } | undefined, at: number): boolean {
  if (!period) return true;
  if (period.start && at < instant(period.start, "start")) return false;
  if (period.end && at > instant(period.end, "end")) return false;
  return true;
}

/** A FHIR dateTime as epoch ms; a partial date covers its whole day, month or year. */
function instant(value: string, edge: "start" | "end"): number {
  if (/^\d{4}$/.test(value)) return Date.UTC(Number(value) + (edge === "end" ? 1 : 0), 0, 1) - (edge === "end" ? 1 : 0);
  if (/^\d{4}-\d{2}$/.test(value)) {
    const [y, m] = value.split("-").map(Number) as [number, number];
    return Date.UTC(y, m - 1 + (edge === "end" ? 1 : 0), 1) - (edge === "end" ? 1 : 0);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T00:00:00Z`) + (edge === "end" ? 86_399_999 : 0);
  return Date.parse(value);
}

/** Why a provision's conditions do not cover the request, or undefined when they all do (absent ones match everything). */
function mismatch(p: Provision, req: ConsentRequest, at: number): string | undefined {
  if (!inPeriod(p.period, at)) return "period";
  if (p.actor?.length) {
    const refs = new Set(req.actors ?? []);
    if (!p.actor.some((a) => a.reference?.reference && refs.has(a.reference.reference))) return "actor";
  }
  if (p.action?.length) {
    const want = { system: ACTION_SYSTEM, code: req.action };
    if (!p.action.some((a) => a.coding?.some((c) => sameCoding(c, want)))) return "action";
  }
  if (p.purpose?.length && !anyCoding(p.purpose, req.purposes)) return "purpose";
  const data = req.data ?? {};
  if (p.securityLabel?.length && !anyCoding(p.securityLabel, data.securityLabels)) return "securityLabel";
  if (p.class?.length) {
    const types = (data.resourceTypes ?? []).map((code) => ({ system: RESOURCE_TYPES_SYSTEM, code }));
    if (!anyCoding(p.class, types)) return "class";
  }
  if (p.code?.length && !p.code.some((cc) => anyCoding(cc.coding ?? [], data.codes))) return "code";
  if (p.data?.length) {
    const refs = new Set(data.references ?? []);
    if (!p.data.some((d) => d.reference?.reference && refs.has(d.reference.reference))) return "data";
  }
  return undefined;
}

/** The root's type, or the one its policyRule implies (OPTIN* permit, OPTOUT* deny); permit when neither says. */
function rootType(consent: Resource, root: Provision): "permit" | "deny" {
  if (root.type === "permit" || root.type === "deny") return root.type;
  const rule = (consent.policyRule as { coding?: Coding[] } | undefined)?.coding?.map((c) => c.code ?? "") ?? [];
  if (rule.some((c) => c.startsWith("OPTOUT"))) return "deny";
  return "permit";
}

interface Match {
  type: "permit" | "deny";
  path: string;
  depth: number;
}

/**
 * The deciding provision under `p` (which matches): the deepest matching descendant; among
 * matches of equal depth, a deny beats a permit (so a sibling deny is never outvoted).
 */
function deepest(p: Provision, type: "permit" | "deny", path: string, depth: number, req: ConsentRequest, at: number): Match {
  let best: Match = { type, path, depth };
  (p.provision ?? []).forEach((child, i) => {
    if (mismatch(child, req, at)) return;
    const childType = child.type === "permit" || child.type === "deny" ? child.type : type;
    const m = deepest(child, childType, `${path}.provision[${i}]`, depth + 1, req, at);
    if (m.depth > best.depth || (m.depth === best.depth && m.type === "deny" && best.type === "permit")) best = m;
  });
  return best;
}

/** Whether a Consent is in force for the patient at `at` (active, its patient, not dated in the future). */
function inForce(consent: Resource, patient: string, at: number): boolean {
  if (consent.resourceType !== "Consent" || consent.status !== "active") return false;
  if ((consent.patient as { reference?: string } | undefined)?.reference !== patient) return false;
  const dated = typeof consent.dateTime === "string" ? instant(consent.dateTime, "start") : undefined;
  return dated === undefined || Number.isNaN(dated) || dated <= at;
}

/**
 * Decides `req` over `consents` (the patient's Consents; others are ignored). Every Consent in
 * force whose root provision covers the request applies and yields its deepest matching
 * provision's type; a deny from any applying Consent overrides permits from others. When none
 * applies, the org's default: opt-in denies, opt-out permits.
 */
export function decide(req: ConsentRequest, consents: readonly Resource[], defaultPolicy: DefaultPolicy): ConsentDecision {
  const at = req.time ? Date.parse(req.time) : Date.now();
  const patient = patientRef(req.patient);
  const applied: ConsentDecision["applied"] = [];
  const skipped: string[] = [];
  for (const consent of consents) {
    if (!inForce(consent, patient, at)) continue;
    const root = (consent.provision ?? {}) as Provision;
    const ref = `Consent/${consent.id ?? ""}`;
    const why = mismatch(root, req, at);
    if (why) {
      skipped.push(`${ref} (${why})`);
      continue;
    }
    const m = deepest(root, rootType(consent, root), "provision", 0, req, at);
    applied.push({ consent: ref, decision: m.type, provision: m.path });
  }
  const deny = applied.find((a) => a.decision === "deny");
  const decisive = deny ?? applied[0];
  if (decisive) {
    return {
      decision: decisive.decision,
      basis: "consent",
      consent: decisive.consent,
      provision: decisive.provision,
      applied,
      reason: `${decisive.consent} ${decisive.provision} ${decisive.decision === "deny" ? "denies" : "permits"} ${req.action}`,
    };
  }
  const decision = defaultPolicy === "opt-out" ? "permit" : "deny";
  const none = skipped.length ? `no Consent covers the request (${skipped.join(", ")})` : "the patient has no Consent in force";
  return { decision, basis: "default", applied, reason: `${none}; the organization's default policy is ${defaultPolicy}` };
}
