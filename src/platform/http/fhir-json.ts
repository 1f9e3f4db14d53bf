// The media type FHIR JSON goes out as. FHIR R4 (http.html#mime-type) names the JSON format
// application/fhir+json and also accepts application/json: a client whose Accept asks for
// application/json and not application/fhir+json (nor any type) gets that label, everyone
// else application/fhir+json.

const FHIR_JSON = "application/fhir+json; charset=utf-8";
const PLAIN_JSON = "application/json; charset=utf-8";

export function fhirJsonContentType(accept: string | undefined): string {
  const types = (accept ?? "").split(",").map((range) => range.split(";")[0]!.trim().toLowerCase());
  return types.includes("application/json") && !types.includes("application/fhir+json") && !types.includes("*/*") ? PLAIN_JSON : FHIR_JSON;
}
