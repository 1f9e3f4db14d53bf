// QIDO + ImagingStudy mapping against a real Orthanc (test/support/orthanc.ts, loopback
// only): each operation is a QIDO-RS instance search of one study through the guarded
// client, mapped to an ImagingStudy. Baseline in the same run: Orthanc's own GET /system
// (its cheapest call) with the same concurrency, so the ratio says what the DICOMweb
// query and the mapping cost beyond a round trip. Also the mapping alone, in-process.
// Run: npx tsx bench/dicomweb.ts [--seconds N per measurement, default 5] [--concurrency C, default 4]
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseOutboundAllow } from "../src/platform/outbound/policy";
import { DicomwebClient, guardedTransport, imagingStudyFromDicom, TAG } from "../src/standards/dicomweb";
import { startOrthanc } from "../test/support/orthanc";
import { formatResult, load, throughput } from "./lib/load";
import { allMeasured, measured } from "./lib/measured";
import { numberOption } from "./lib/options";

const SECONDS = numberOption("seconds", 5);
const CONCURRENCY = numberOption("concurrency", 4, { integer: true });
const FIXTURES = path.resolve(import.meta.dirname, "../test/fixtures/dicom");
const MR_STUDY = "1.3.6.1.4.1.5962.1.2.4.20040826185059.5457";
const INCLUDE = [TAG.Modality, TAG.SeriesNumber, TAG.StudyDate, TAG.StudyTime, TAG.AccessionNumber, TAG.TimezoneOffsetFromUTC];

const orthanc = await startOrthanc();
try {
  const client = new DicomwebClient(orthanc.dicomweb, guardedTransport({ policy: parseOutboundAllow("127.0.0.1").policy }));
  const files = ["ct-small.dcm", "mr-small-1.dcm", "mr-small-2.dcm"].map((f) => new Uint8Array(readFileSync(path.join(FIXTURES, f))));
  const stored = await client.store(files);
  if (stored.failed.length || stored.stored.length !== files.length) throw new Error(`STOW of the fixtures failed: ${JSON.stringify(stored)}`);

  const queryAndMap = async () => {
    const instances = await client.searchInstances({ studyInstanceUid: MR_STUDY, includefield: INCLUDE });
    const study = imagingStudyFromDicom(instances, { subject: { reference: "Patient/bench" } });
    return new Response(null, { status: study.numberOfInstances === 2 ? 200 : 500 });
  };
  await load("warm-up", queryAndMap, { concurrency: CONCURRENCY, seconds: 1 });
  const system = await load("GET /system (baseline)", () => fetch(`${orthanc.url}/system`), { concurrency: CONCURRENCY, seconds: SECONDS });
  const qido = await load("QIDO instances + ImagingStudy", queryAndMap, { concurrency: CONCURRENCY, seconds: SECONDS });
  allMeasured([throughput(system), throughput(qido)]);

  // The mapping alone, on the metadata of the same study.
  const metadata = await client.metadata({ study: MR_STUDY });
  let maps = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) {
    for (let i = 0; i < 100; i++) imagingStudyFromDicom(metadata, { subject: { reference: "Patient/bench" } });
    maps += 100;
  }
  const mapsPerSecond = measured({ label: "ImagingStudy mappings/s", value: (maps * 1000) / (performance.now() - start) });

  console.log(`Orthanc ${orthanc.url} on loopback, ${CONCURRENCY} concurrent clients, ${SECONDS} s each`);
  console.log(formatResult(system));
  console.log(formatResult(qido));
  console.log(`ratio QIDO+map / GET /system: throughput ${(qido.rps / system.rps).toFixed(2)}x, p50 latency ${(qido.p50 / system.p50).toFixed(2)}x`);
  console.log(`ImagingStudy mapping alone (WADO metadata, 2 instances): ${Math.round(mapsPerSecond).toLocaleString("en")}/s in-process`);
} finally {
  await orthanc.stop();
}
