// Sample HL7 v2 messages from the repository's fixtures (test/fixtures/hl7v2), normalised for framing (no BOM, \r segment
// ends), and a helper to give a sample a chosen sender and control id.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const FIXTURE_DIR = path.resolve(import.meta.dirname, "../../../test/fixtures/hl7v2");

export function fixture(name: string): string {
  return readFileSync(path.join(FIXTURE_DIR, name), "utf8")
    .replace(/^\uFEFF/, "")
    .replace(/\r\n|\n/g, "\r")
    .replace(/\r+$/, "\r");
}

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(".hl7"))
    .sort();
}

/** The sample with MSH-3, MSH-4 and MSH-10 replaced (the sample's own delimiters are kept). */
export function withHeader(message: string, sendingApp: string, sendingFacility: string, controlId: string): string {
  const end = message.indexOf("\r");
  const msh = message.slice(0, end).split("|");
  msh[2] = sendingApp;
  msh[3] = sendingFacility;
  msh[9] = controlId;
  return `${msh.join("|")}${message.slice(end)}`;
}
