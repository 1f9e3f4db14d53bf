// `npm run fuzz -- --seconds N --seed S [--concurrency C] [--requests R]`: the malformed-input
// fuzzer (scripts/lib/fuzz.ts) against npm start's runtime on a fresh temporary state, for as
// long as asked; prints the figures and every finding, and exits 1 when there is one.
import { parseArgs } from "node:util";
import { fuzz } from "./lib/fuzz";
import { startFuzzService } from "./lib/fuzz-service";

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: "string", default: "60" }, seed: { type: "string", default: "1" }, concurrency: { type: "string", default: "4" }, requests: { type: "string" } } });
  const seconds = Number(values.seconds);
  const seed = Number(values.seed);
  if (!(seconds > 0) || !Number.isInteger(seed)) throw new Error("usage: npm run fuzz -- --seconds N --seed S [--concurrency C] [--requests R]");
  console.log("Starting npm start's runtime on a fresh temporary state…");
  const service = await startFuzzService();
  try {
    console.log(`Fuzzing ${service.baseUrl} for ${seconds} s with seed ${seed}…`);
    const report = await fuzz({ ...service, seed, seconds, concurrency: Number(values.concurrency), requests: values.requests ? Number(values.requests) : undefined, log: (l) => console.log(l) });
    console.log(JSON.stringify({ seed: report.seed, requests: report.requests, seconds: Math.round(report.durationMs / 1000), byStatus: report.byStatus, healthChecks: report.healthChecks, watchdogRestarts: service.restarts(), findings: report.findings.length, known: report.known.length }, null, 2));
    for (const s of report.slowest) console.log(`slow: ${s.ms} ms ${s.request}`);
    console.log(`connections closed before a response: ${report.resets.length}`);
    for (const k of report.known) console.log(`known (${k.issue}): ${k.status} ${k.request}`);
    for (const line of service.lines) console.log(`[workerd] ${line}`);
    process.exitCode = report.findings.length ? 1 : 0;
  } finally {
    await service.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
