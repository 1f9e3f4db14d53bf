// An access policy's rules checked and compiled (pure): every resource type known, criteria a FHIR
// search of the rule's own type that the store's search parser takes (strict: an unknown parameter
// is an error) and that can be evaluated on one resource in memory (a read, a write), compartments
// naming a Patient or a Group, field paths naming elements of the type. Saving answers 422 with
// each issue at its place in the body (snake_case, as the API names it); a stored rule that no
// longer compiles (definitions changed) admits nothing.
import { R4_DEFINITIONS, inPatientCompartment, isResourceType, parseCriteria, resolveElementPath, searchProblem } from "../fhir";
import type { FieldPath } from "./hidden-fields";
import type { CompiledPolicy, CompiledRule, PolicyRule } from "./rules";

export interface RuleIssue {
  path: string;
  message: string;
}

/** Search result parameters: they mean nothing for what a rule admits. */
const RESULT_PARAMS = new Set(["_count", "_sort", "_include", "_revinclude", "_summary", "_elements", "_total", "_format", "_pretty", "_cursor", "_type", "_contained", "_containedType"]);
const ID = /^[A-Za-z0-9\-.]{1,64}$/;

export function compilePolicy(def: { id: string; name: string; resources: readonly PolicyRule[] }): { policy: CompiledPolicy; issues: RuleIssue[] } {
  const issues: RuleIssue[] = [];
  const rules: CompiledRule[] = [];
  def.resources.forEach((rule, i) => {
    const at = (field: string) => `resources[${i}].${field}`;
    const before = issues.length;
    const compiled = compileRule(rule, (field, message) => issues.push({ path: at(field), message }));
    if (compiled && issues.length === before) rules.push(compiled);
  });
  return { policy: { id: def.id, name: def.name, rules }, issues };
}

type Report = (field: string, message: string) => void;

function compileRule(rule: PolicyRule, report: Report): CompiledRule | undefined {
  const type = rule.resourceType;
  if (type !== "*" && !isResourceType(type)) {
    report("resource_type", `${type} is not a FHIR R4 resource type (or "*" for every type)`);
    return undefined;
  }
  const out: CompiledRule = { resourceType: type, readonly: rule.readonly === true, hidden: [], readonlyFields: [] };
  if (rule.criteria !== undefined) {
    const criteria = compileCriteria(type, rule.criteria, (m) => report("criteria", m));
    if (criteria) out.criteria = criteria;
  }
  if (rule.compartment) {
    const compartment = compileCompartment(type, rule.compartment, (m) => report("compartment", m));
    if (compartment) out.compartment = compartment;
  }
  out.hidden = compileFields(type, rule.hiddenFields ?? [], (j, m) => report(`hidden_fields[${j}]`, m));
  out.readonlyFields = compileFields(type, rule.readonlyFields ?? [], (j, m) => report(`readonly_fields[${j}]`, m));
  return out;
}

function compileCriteria(type: string, text: string, report: (message: string) => void): CompiledRule["criteria"] | undefined {
  if (type === "*") return void report('criteria need the rule\'s resource type: a rule for "*" takes none');
  const trimmed = text.trim();
  const at = trimmed.indexOf("?");
  const named = at < 0 ? trimmed : trimmed.slice(0, at);
  if (named !== type) return void report(`criteria are a search of ${type}, the rule's type ("${type}?param=value"), not of ${named || "(nothing)"}`);
  const query = trimmed.slice(at + 1);
  const params = [...new URLSearchParams(query).keys()];
  if (at < 0 || !params.length) return void report(`criteria "${trimmed}" name no search parameter`);
  const result = params.find((p) => RESULT_PARAMS.has(p.split(":")[0]!));
  if (result) return void report(`criteria "${trimmed}": ${result} is a result parameter, which says nothing about what a rule admits`);
  // The store's own parser and SQL builder (what the search pushed into the query runs), strictly.
  const problem = searchProblem(R4_DEFINITIONS, type, query);
  if (problem) return void report(`criteria "${trimmed}": ${problem}`);
  // And what a read or a write is judged with: the criteria evaluated on the resource in memory.
  const parsed = parseCriteria(trimmed);
  if ("issue" in parsed) return void report(`criteria "${trimmed}" cannot be evaluated on a resource: ${parsed.issue}`);
  return { text: trimmed, query, match: parsed };
}

function compileCompartment(type: string, compartment: NonNullable<PolicyRule["compartment"]>, report: (message: string) => void): CompiledRule["compartment"] | undefined {
  if (type !== "*" && !inPatientCompartment(type)) return void report(`${type} resources are in no patient's compartment: a compartment rule for them would admit nothing`);
  const [kind, ref] = "patient" in compartment ? (["Patient", compartment.patient] as const) : (["Group", compartment.group] as const);
  const m = /^([A-Za-z]+)\/(.+)$/.exec(ref);
  if (!m || m[1] !== kind || !ID.test(m[2]!)) return void report(`${kind === "Patient" ? "patient" : "group"} must be a reference ${kind}/<id>, got "${ref}"`);
  return kind === "Patient" ? { patient: m[2]! } : { group: m[2]! };
}

function compileFields(type: string, fields: readonly string[], report: (index: number, message: string) => void): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [j, text] of fields.entries()) {
    const [first, ...rest] = text.split(".");
    // "Patient.telecom" names its type; "telecom" is of the rule's type (every type, for "*").
    const typed = first !== undefined && /^[A-Z]/.test(first);
    if (typed && !isResourceType(first)) {
      report(j, `${first} is not a resource type`);
      continue;
    }
    if (typed && type !== "*" && first !== type) {
      report(j, `${text} is a field of ${first}, not of ${type} (the rule's type)`);
      continue;
    }
    const on = typed ? first : type;
    const steps = resolveElementPath(on, typed ? rest.join(".") : text);
    if ("issue" in steps) {
      report(j, `${text}: ${steps.issue}`);
      continue;
    }
    const repeated = steps.slice(0, -1).findIndex((s) => s.repeats);
    if (repeated >= 0) {
      report(j, `${text}: ${steps.slice(0, repeated + 1).map((s) => s.name).join(".")} repeats; a field path goes through single elements (hide the repeating element itself)`);
      continue;
    }
    out.push({ type: on, text, steps });
  }
  return out;
}
