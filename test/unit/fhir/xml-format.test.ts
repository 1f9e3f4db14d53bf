// FHIR R4 XML ↔ JSON on official R4 examples (test/fixtures/fhir-xml): the XML reads as exactly
// the published JSON; JSON written as XML reads back the same and keeps the original's elements,
// attributes and order; primitives' ids and extensions, null-padded arrays, choice types,
// contained resources, XHTML and escaping; and each way XML can be wrong is refused, saying where.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FhirXmlError, resourceFromXml, resourceToXml, XmlSyntaxError } from "../../../src/features/fhir/xml";
import { type XmlElement, parseXml } from "../../../src/features/fhir/xml/xml-tree";
import { xhtmlString } from "../../../src/features/fhir/xml/xhtml";

const DIR = path.resolve(import.meta.dirname, "../../fixtures/fhir-xml");
const fixture = (name: string) => fs.readFileSync(path.join(DIR, name), "utf8");

const OFFICIAL: [xml: string, json: string][] = [
  ["patient-example.xml", "Patient-example.json"],
  ["questionnaire-example.xml", "Questionnaire-3141.json"],
  ["list-example-long.xml", "List-long.json"],
  ["condition-example.xml", "Condition-example.json"],
  ["patient-example-xds.xml", "Patient-xds.json"],
  ["patient-glossy-example.xml", "Patient-glossy.json"],
];

/** Narrative divs written one way (the published JSON keeps the XML's entity spellings, e.g. &quot;). */
function canonicalDivs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalDivs);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "div" && typeof v === "string" ? xhtmlString(parseXml(v)) : canonicalDivs(v)]));
}

/** An XML element as data: name, namespace, attributes (no namespace declarations), children; comments and layout whitespace gone. */
function tree(element: XmlElement, inXhtml = false): unknown {
  const xhtml = inXhtml || element.uri === "http://www.w3.org/1999/xhtml";
  return {
    name: `${element.uri}|${element.local}`,
    attributes: Object.fromEntries(element.attributes.filter((a) => a.prefix !== "xmlns" && a.name !== "xmlns" && a.prefix !== "xsi").map((a) => [a.local, a.value])),
    children: element.children.filter((c) => typeof c !== "string" || (xhtml && c.length > 0)).map((c) => (typeof c === "string" ? c : tree(c, xhtml))),
  };
}

describe("FHIR XML: official R4 examples", () => {
  for (const [xml, json] of OFFICIAL) {
    it(`${xml} reads as the published ${json}, and writes back to the same XML`, () => {
      const read = resourceFromXml(fixture(xml));
      const published = JSON.parse(fixture(json));
      expect(canonicalDivs(read)).toEqual(canonicalDivs(published));
      const written = resourceToXml(read);
      expect(tree(parseXml(written))).toEqual(tree(parseXml(fixture(xml))));
      expect(resourceToXml(published)).toBe(written);
      expect(resourceFromXml(written)).toEqual(read);
    });
  }

  it("reads a complex extension value, decimals and schemaLocation, and writes them back", () => {
    const obs = resourceFromXml(fixture("observation-example.xml"));
    expect(obs.extension).toEqual([{ url: "http://example.com/fhir/StructureDefinition/patient-age", valueAge: { value: 41, system: "http://unitsofmeasure.org", code: "a" } }]);
    expect(obs.valueQuantity).toEqual({ value: 185, unit: "lbs", system: "http://unitsofmeasure.org", code: "[lb_av]" });
    expect(tree(parseXml(resourceToXml(obs)))).toEqual(tree(parseXml(fixture("observation-example.xml"))));
    const params = resourceFromXml(fixture("parameters-example-types.xml"));
    expect(params.parameter).toEqual([
      { name: "string", valueString: "string" },
      { name: "integer", valueInteger: 1 },
      { name: "uuid", valueUuid: "urn:uuid:79a14950-442c-11ed-b878-0242ac120002" },
      { name: "decimal", valueDecimal: 1 },
    ]);
  });
});

describe("FHIR XML: the JSON mapping rules", () => {
  const patient = (inner: string) => `<Patient xmlns="http://hl7.org/fhir"><id value="p1"/>${inner}</Patient>`;

  it("puts primitives' ids and extensions in _name twins, null-padded in arrays", () => {
    const xml = patient(
      `<name id="n1"><family value="Chalmers"><extension url="http://x/prefix"><valueCode value="VV"/></extension></family>` +
        `<given value="Peter"/><given id="g2"><extension url="http://x/absent"><valueBoolean value="true"/></extension></given></name>` +
        `<birthDate id="b"><extension url="http://hl7.org/fhir/StructureDefinition/data-absent-reason"><valueCode value="unknown"/></extension></birthDate>`,
    );
    const read = resourceFromXml(xml);
    expect(read).toEqual({
      resourceType: "Patient",
      id: "p1",
      name: [{ id: "n1", family: "Chalmers", _family: { extension: [{ url: "http://x/prefix", valueCode: "VV" }] }, given: ["Peter", null], _given: [null, { id: "g2", extension: [{ url: "http://x/absent", valueBoolean: true }] }] }],
      _birthDate: { id: "b", extension: [{ url: "http://hl7.org/fhir/StructureDefinition/data-absent-reason", valueCode: "unknown" }] },
    });
    expect(resourceToXml(read)).toBe(`<?xml version="1.0" encoding="UTF-8"?>${xml}`);
  });

  it("wraps contained and Bundle entry resources, keeps XHTML, escapes what attributes cannot hold", () => {
    const bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        {
          fullUrl: "urn:uuid:1",
          resource: {
            resourceType: "Observation",
            contained: [{ resourceType: "Patient", id: "pat", active: true }],
            text: { status: "generated", div: '<div xmlns="http://www.w3.org/1999/xhtml"><p class="x">a &amp; b &lt; c<br/></p></div>' },
            status: "final",
            code: { text: 'line one\nline\ttwo "quoted" <tag> & more' },
            subject: { reference: "#pat" },
            valueInteger: 7,
          },
          request: { method: "POST", url: "Observation" },
        },
      ],
    };
    const xml = resourceToXml(bundle);
    expect(xml).toContain('<entry><fullUrl value="urn:uuid:1"/><resource><Observation><text><status value="generated"/><div xmlns="http://www.w3.org/1999/xhtml"><p class="x">a &amp; b &lt; c<br/></p></div></text>');
    expect(xml).toContain('</text><contained><Patient><id value="pat"/><active value="true"/></Patient></contained><status value="final"/>');
    expect(xml).toContain('<text value="line one&#10;line&#9;two &quot;quoted&quot; &lt;tag&gt; &amp; more"/>');
    expect(resourceFromXml(xml)).toEqual(bundle);
  });

  it("writes elements in definition order whatever the JSON order", () => {
    const xml = resourceToXml({ resourceType: "Patient", gender: "male", name: [{ given: ["A"], family: "B" }], id: "x", active: true });
    expect(xml).toBe('<?xml version="1.0" encoding="UTF-8"?><Patient xmlns="http://hl7.org/fhir"><id value="x"/><active value="true"/><name><family value="B"/><given value="A"/></name><gender value="male"/></Patient>');
  });

  it("writes a div that is not XHTML as text, so the document stays well-formed", () => {
    const xml = resourceToXml({ resourceType: "Patient", text: { status: "generated", div: "<div><p>unclosed</div>" } });
    expect(xml).toContain('<div xmlns="http://www.w3.org/1999/xhtml">&lt;div&gt;&lt;p&gt;unclosed&lt;/div&gt;</div>');
    expect(() => parseXml(xml)).not.toThrow();
  });
});

describe("FHIR XML: refusals", () => {
  const refusals: [string, string, RegExp][] = [
    ["not well-formed", '<Patient xmlns="http://hl7.org/fhir"><id value="x"></Patient>', /./],
    ["a DOCTYPE", '<!DOCTYPE Patient [<!ENTITY x "y">]><Patient xmlns="http://hl7.org/fhir"/>', /DOCTYPE/],
    ["no FHIR namespace", "<Patient><id value='x'/></Patient>", /FHIR namespace/],
    ["not a resource type", '<Patientt xmlns="http://hl7.org/fhir"/>', /not an R4 resource type/],
    ["an unknown element", '<Patient xmlns="http://hl7.org/fhir"><name><nickname value="J"/></name></Patient>', /Patient\.name\.nickname: not an element R4 defines/],
    ["an unknown choice type", '<Observation xmlns="http://hl7.org/fhir"><valueMoney><value value="1"/></valueMoney></Observation>', /Observation\.valueMoney/],
    ["text outside a value attribute", '<Patient xmlns="http://hl7.org/fhir"><gender>male</gender></Patient>', /Patient\.gender: a primitive's value goes in its value attribute/],
    ["a bad boolean", '<Patient xmlns="http://hl7.org/fhir"><active value="yes"/></Patient>', /Patient\.active: "yes" is not a boolean/],
    ["a bad decimal", '<Observation xmlns="http://hl7.org/fhir"><valueQuantity><value value="1,5"/></valueQuantity></Observation>', /not a decimal/],
    ["a repeated single element", '<Patient xmlns="http://hl7.org/fhir"><gender value="male"/><gender value="female"/></Patient>', /Patient\.gender: appears more than once/],
    ["an empty primitive", '<Patient xmlns="http://hl7.org/fhir"><gender/></Patient>', /neither a value nor extensions/],
    ["an unknown attribute", '<Patient xmlns="http://hl7.org/fhir"><gender value="male" code="m"/></Patient>', /unexpected attribute code/],
    ["the resource id as an attribute", '<Patient xmlns="http://hl7.org/fhir" id="x"/>', /unexpected attribute id/],
    ["two resources in contained", '<Patient xmlns="http://hl7.org/fhir"><contained><Patient/><Patient/></contained></Patient>', /exactly one resource/],
  ];
  for (const [what, xml, message] of refusals) {
    it(`refuses ${what}`, () => {
      let error: unknown;
      try {
        resourceFromXml(xml);
      } catch (e) {
        error = e;
      }
      expect(error instanceof FhirXmlError || error instanceof XmlSyntaxError, String(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
    });
  }
});

// Every example instance of the R4 package (npm hl7.fhir.r4.examples, CC0; the conformance resources
// it also holds are left out for time): written as XML and read back, each is the JSON it was.
describe("FHIR XML: every official R4 example instance round-trips", () => {
  const dir = path.resolve(import.meta.dirname, "../../../node_modules/hl7.fhir.r4.examples");
  const CONFORMANCE = /^(StructureDefinition|SearchParameter|ValueSet|CodeSystem|ConceptMap|OperationDefinition|CompartmentDefinition|NamingSystem|ImplementationGuide|CapabilityStatement|StructureMap|Bundle-(resources|types|dataelements|valueset-expansions|conceptmaps|searchParams|v2-tables|v3-codesystems|extensions|profiles-others))\b/;
  const files = fs.readdirSync(dir).filter((f) => /^[A-Z]\w+-.+\.json$/.test(f) && !CONFORMANCE.test(f));

  it(`${files.length} instances: JSON → XML → JSON unchanged`, () => {
    expect(files.length).toBeGreaterThan(700);
    const changed: string[] = [];
    for (const file of files) {
      const json = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
      const back = resourceFromXml(resourceToXml(json));
      if (JSON.stringify(sortedKeys(canonicalDivs(back))) !== JSON.stringify(sortedKeys(canonicalDivs(json)))) changed.push(file);
    }
    expect(changed).toEqual([]);
  }, 120_000);
});

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]));
}
