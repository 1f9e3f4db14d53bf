// In-process benchmark of the HL7 v2 parser and the HL7-to-FHIR converter on the
// ADT^A01 and ORU^R01 samples, with a baseline measured in the same run:
// JSON.parse + JSON.stringify of a JSON payload of the same size as the message.
// Run: npx tsx bench/hl7-convert.ts [--seconds N per measurement, default 1]

import fs from "node:fs";
import path from "node:path";
import { convertToFhir } from "../src/standards/hl7v2/convert/index";
import { parseMessage } from "../src/standards/hl7v2/parse";
import { allMeasured, measured } from "./lib/measured";
import { numberOption } from "./lib/options";

const FIXTURES = process.env.HL7_FIXTURES ?? path.resolve(import.meta.dirname, "../test/fixtures/hl7v2");
const SECONDS = numberOption("seconds", 1);
const SAMPLES: [string, string][] = [
  ["ADT^A01", "ADT-A01-01.hl7"],
  ["ORU^R01", "LAB-ORU-1.hl7"],
  ["ORU^R01", "ORU-R01-01.hl7"],
];

let sink = 0;

/** Runs f repeatedly for about `seconds`, in batches, and answers operations per second. */
function rate(f: () => unknown, seconds = SECONDS): number {
  for (let i = 0; i < 200; i++) f(); // warm-up
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  let now = start;
  while (now < until) {
    for (let i = 0; i < 50; i++) {
      const r = f();
      if (r) sink++;
    }
    n += 50;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

/** A JSON payload of about `size` characters shaped like a message: segments of fields. */
function equivalentJson(text: string): string {
  const segs = text.split(/\r\n|\r|\n/).filter(Boolean).map((s) => s.split("|"));
  return JSON.stringify({ segments: segs });
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(9);
const rows: string[][] = [];
for (const [label, file] of SAMPLES) {
  const text = fs.readFileSync(path.join(FIXTURES, file), "utf8");
  const parsed = parseMessage(text);
  const json = equivalentJson(text);
  const entries = measured({ label: `${label} ${file} entries converted`, value: convertToFhir(parsed).entry?.length ?? 0 });
  const [baseline, parse, convert, both] = allMeasured([
    { label: `${label} baseline/s`, value: rate(() => JSON.stringify(JSON.parse(json)).length) },
    { label: `${label} parse/s`, value: rate(() => parseMessage(text).segments.length) },
    { label: `${label} convert/s`, value: rate(() => convertToFhir(parsed).entry?.length) },
    { label: `${label} parse+convert/s`, value: rate(() => convertToFhir(parseMessage(text)).entry?.length) },
  ]);
  rows.push([
    `${label} ${file}`,
    `${text.length}`,
    `${json.length}`,
    `${entries}`,
    fmt(baseline),
    fmt(parse),
    fmt(convert),
    fmt(both),
    (parse / baseline).toFixed(2),
    (both / baseline).toFixed(2),
  ]);
}

const header = ["sample", "bytes", "json bytes", "entries", "baseline/s", "parse/s", "convert/s", "parse+convert/s", "parse÷base", "p+c÷base"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.trim().length)));
const line = (r: string[]) => r.map((c, i) => c.trim().padStart(widths[i]!)).join("  ");
console.log(`HL7 v2 parse and HL7-to-FHIR convert, messages per second (${SECONDS}s per measurement, node ${process.version})`);
console.log("baseline = JSON.parse + JSON.stringify of a same-size JSON payload, measured in the same run");
console.log(line(header));
for (const r of rows) console.log(line(r));
if (sink < 0) console.log(sink);
