// FHIR R4 XML ↔ JSON, loaded only when a request or response is XML (routes/fhir-format.ts imports
// it dynamically, so the JSON path never evaluates it).
export { FhirXmlError, resourceFromXml } from "./parse";
export { resourceToXml } from "./serialize";
export { XmlSyntaxError } from "./xml-tree";
