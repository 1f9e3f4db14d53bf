import fs from "node:fs";
import { parseMessage } from "./src/hl7v2/parse";
import { convertToFhirWithReport } from "./src/hl7v2/convert/index";
const dir = "/work/shared/fixtures/hl7v2/";
const fam = new Set(["ADT","ORU","ORM","SIU","MDM","DFT"]);
let n = 0; const counts: Record<string, number> = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".hl7"))) {
  const m = parseMessage(fs.readFileSync(dir + f, "utf8"));
  if (!fam.has(m.messageType)) continue;
  try {
    const r = convertToFhirWithReport(m);
    n++;
    for (const e of r.bundle.entry ?? []) counts[e.resource!.resourceType] = (counts[e.resource!.resourceType] ?? 0) + 1;
    if (process.argv[2] === f) console.log(JSON.stringify(r.bundle, null, 1), r.warnings);
  } catch (e) { console.log(f, e); }
}
console.log(n, counts);
