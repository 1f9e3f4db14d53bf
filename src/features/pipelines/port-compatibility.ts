// Which port types may be connected. Pure and import-free: the service's definition validator
// and the web console's canvas (console/src/editor) both use it, so they cannot disagree.

/**
 * Whether a value of type `from` may flow into a port of type `to`. JSON ports take
 * any structured value; resource and bundle ports take JSON or a trigger's event
 * (checked when the node runs); a standard's message ports (`<standard>-message`: HL7 v2, X12)
 * take text or a trigger's event; text only meets text. Unknown family types match themselves and any/json.
 */
export function portsCompatible(from: string, to: string): boolean {
  if (from === to || from === "any" || to === "any") return true;
  if (to === "json") return from !== "text";
  if (to === "fhir-resource" || to === "fhir-bundle") return from === "json" || from === "trigger-event";
  if (to.endsWith("-message")) return from === "text" || from === "trigger-event";
  return false;
}

/** What a port of type `to` takes, in words: the reason the console gives when it refuses a connection. */
export function portAccepts(to: string): string {
  if (to === "any") return "any value";
  if (to === "json") return "any structured value (not text)";
  if (to === "fhir-resource" || to === "fhir-bundle") return `${to}, json or a trigger's event`;
  if (to.endsWith("-message")) return `${to}, text or a trigger's event`;
  return `${to} or any`;
}
