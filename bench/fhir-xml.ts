// In-process benchmark of the FHIR XML converter (src/features/fhir/xml/), with baselines measured
// in the same run: JSON.parse and JSON.stringify of the same content as FHIR JSON. Inputs: a
// collection Bundle of the official R4 example instances (npm hl7.fhir.r4.examples), and an
// ITI-65-sized Bundle whose Binary carries a document of --document-kb KB (base64 in one attribute).
// Run: npx tsx bench/fhir-xml.ts [--seconds N per measurement, default 1] [--document-kb N, default 1024]
import fs from "node:fs";
import path from "node:path";
import type { Context } from "hono";
import { fhirXmlResponses, responseFormat } from "../src/features/fhir/routes/fhir-format";
import { resourceFromXml, resourceToXml } from "../src/features/fhir/xml";
import type { Resource } from "../src/features/fhir/port";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";

const SECONDS = numberOption("seconds", 1);
const DOCUMENT_KB = numberOption("document-kb", 1024, { integer: true });
const EXAMPLES = path.resolve(import.meta.dirname, "../node_modules/hl7.fhir.r4.examples");
const CONFORMANCE = /^(StructureDefinition|SearchParameter|ValueSet|CodeSystem|ConceptMap|OperationDefinition|CompartmentDefinition|NamingSystem|ImplementationGuide|CapabilityStatement|StructureMap|Bundle)-/;

function rate(f: () => unknown, seconds = SECONDS): number {
  for (let i = 0; i < 3; i++) f(); // warm-up
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  let now = start;
  while (now < until) {
    f();
    n++;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

const instances = fs
  .readdirSync(EXAMPLES)
  .filter((f) => /^[A-Z]\w+-.+\.json$/.test(f) && !CONFORMANCE.test(f))
  .map((f) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8")) as Resource);
const examples: Resource = { resourceType: "Bundle", type: "collection", entry: instances.map((resource) => ({ resource })) };

const bytes = new Uint8Array(DOCUMENT_KB * 1024).map((_, i) => (i * 31 + (i >> 9)) & 0xff);
let binary = "";
for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
const provide: Resource = {
  resourceType: "Bundle",
  type: "transaction",
  entry: [
    { fullUrl: "urn:uuid:ss", resource: { resourceType: "List", status: "current", mode: "working", subject: { reference: "Patient/p" }, entry: [{ item: { reference: "urn:uuid:doc" } }] }, request: { method: "POST", url: "List" } },
    { fullUrl: "urn:uuid:doc", resource: { resourceType: "DocumentReference", status: "current", subject: { reference: "Patient/p" }, content: [{ attachment: { contentType: "application/pdf", url: "urn:uuid:bin", size: bytes.length } }] }, request: { method: "POST", url: "DocumentReference" } },
    { fullUrl: "urn:uuid:bin", resource: { resourceType: "Binary", contentType: "application/pdf", data: btoa(binary) }, request: { method: "POST", url: "Binary" } },
  ],
};

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(`FHIR XML converter, in-process (${SECONDS}s per measurement, node ${process.version})`);
for (const [name, resource] of [
  [`${instances.length} official R4 example instances in one Bundle`, examples],
  [`ITI-65 Bundle with a ${DOCUMENT_KB} KB document`, provide],
] as const) {
  const json = JSON.stringify(resource);
  const xml = resourceToXml(resource);
  const [parseJson, readXml, stringifyJson, writeXml] = allMeasured([
    { label: "JSON.parse/s", value: rate(() => JSON.parse(json)) },
    { label: "XML → JSON/s", value: rate(() => resourceFromXml(xml)) },
    { label: "JSON.stringify/s", value: rate(() => JSON.stringify(resource)) },
    { label: "JSON → XML/s", value: rate(() => resourceToXml(resource)) },
  ]);
  console.log(`\n${name}: ${fmt(json.length / 1e6, 2)} MB as JSON, ${fmt(xml.length / 1e6, 2)} MB as XML`);
  console.log(`  baseline JSON.parse:      ${fmt(parseJson * json.length / 1e6, 1)} MB/s (${fmt(1000 / parseJson, 2)} ms)`);
  console.log(`  XML → JSON (read):        ${fmt(readXml * xml.length / 1e6, 1)} MB/s (${fmt(1000 / readXml, 2)} ms), ${fmt(parseJson / readXml, 1)} × the time of JSON.parse`);
  console.log(`  baseline JSON.stringify:  ${fmt(stringifyJson * json.length / 1e6, 1)} MB/s (${fmt(1000 / stringifyJson, 2)} ms)`);
  console.log(`  JSON → XML (write):       ${fmt(writeXml * xml.length / 1e6, 1)} MB/s (${fmt(1000 / writeXml, 2)} ms), ${fmt(stringifyJson / writeXml, 1)} × the time of JSON.stringify`);
}

// What a JSON request pays for XML support: the format decision and the response middleware's
// check, per request, against serialising the answer (JSON.stringify of the Patient example).
const patient = instances.find((r) => r.resourceType === "Patient" && r.id === "example")!;
const jsonRequest = {
  req: {
    query: (name: string) => (name === "_format" ? undefined : undefined),
    header: (name: string) => ({ accept: "application/fhir+json", "content-type": "application/fhir+json" })[name],
  },
  res: new Response("{}", { headers: { "content-type": "application/fhir+json" } }),
} as unknown as Context;
const next = async () => {};
const BATCH = 1000;
const [stringifyPatient, negotiate] = allMeasured([
  { label: "JSON.stringify(Patient)/s", value: rate(() => JSON.stringify(patient)) },
  {
    label: "JSON request's format work/s",
    value:
      BATCH *
      rate(() => {
        for (let i = 0; i < BATCH; i++) {
          responseFormat(jsonRequest);
          void fhirXmlResponses(jsonRequest, next);
        }
      }),
  },
]);
console.log(`\nJSON request (Accept and Content-Type application/fhir+json): format decision + XML middleware check`);
console.log(`  ${fmt(1e9 / negotiate, 0)} ns per request; the Patient example's JSON.stringify takes ${fmt(1e9 / stringifyPatient, 0)} ns (${fmt((1e9 / negotiate) / (1e9 / stringifyPatient), 3)} × it)`);
