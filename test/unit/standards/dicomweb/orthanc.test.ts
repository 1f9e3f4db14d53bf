// The DICOMweb client against a real Orthanc with its DICOMweb plugin on loopback
// (test/support/orthanc.ts): STOW of the fixture files, QIDO by every criterion, WADO-RS
// metadata and instances streamed into a sink, rendered and thumbnail images, the
// ImagingStudy mapped from real metadata, and the errors a node must report clearly.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateResource } from "../../../../src/features/fhir/validate";
import { PUBLIC_ONLY, parseOutboundAllow } from "../../../../src/platform/outbound/policy";
import {
  type DicomwebAuth,
  DicomwebClient,
  dicomwebEndpoint,
  guardedTransport,
  imagingStudyFromDicom,
  part10Dataset,
  TAG,
  firstText,
} from "../../../../src/standards/dicomweb";
import { failure } from "./support";
import { droppingPeer } from "../../../support/dropping-peer";
import { closedPort, type RunningOrthanc, startOrthanc } from "../../../support/orthanc";

const FIXTURES = path.join(import.meta.dirname, "../../../fixtures/dicom");
const FILES = ["ct-small.dcm", "mr-small-1.dcm", "mr-small-2.dcm"].map((name) => new Uint8Array(readFileSync(path.join(FIXTURES, name))));
const CT_STUDY = "1.3.6.1.4.1.5962.1.2.1.20040119072730.12322";
const MR_STUDY = "1.3.6.1.4.1.5962.1.2.4.20040826185059.5457";
const MR_SERIES = "1.3.6.1.4.1.5962.1.3.4.1.20040826185059.5457";
const MR_INSTANCE_1 = "1.3.6.1.4.1.5962.1.1.4.1.1.20040826185059.5457";
const LOOPBACK = parseOutboundAllow("127.0.0.1").policy;

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const client = (base: string, auth?: DicomwebAuth) => new DicomwebClient(base, guardedTransport({ policy: LOOPBACK, ...(auth ? { auth } : {}) }));
const studyUids = (datasets: Record<string, unknown>[]) => datasets.map((ds) => firstText(ds as never, TAG.StudyInstanceUID)).sort();


let open: RunningOrthanc;
let secured: RunningOrthanc;

beforeAll(async () => {
  [open, secured] = await Promise.all([startOrthanc(), startOrthanc({ users: { alice: "s3cret" } })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([open?.stop(), secured?.stop()]);
});

describe("against Orthanc", () => {
  it("stores the fixture files with STOW-RS and reports each instance, RetrieveURL with the port", async () => {
    const result = await client(open.dicomweb).store(FILES);
    expect(result.status).toBe(200);
    expect(result.failed).toEqual([]);
    expect(result.stored.map((s) => s.sopInstanceUid).sort()).toEqual(FILES.map((f) => firstText(part10Dataset(f), TAG.SOPInstanceUID)).sort());
    for (const s of result.stored) expect(s.retrieveUrl?.startsWith(`${open.dicomweb}/studies/`)).toBe(true);
    // Storing the same instances again adds nothing.
    await client(open.dicomweb).store(FILES);
    expect(await client(open.dicomweb).searchInstances({ studyInstanceUid: MR_STUDY })).toHaveLength(2);
  });

  it("finds studies by each QIDO criterion", async () => {
    const dw = client(open.dicomweb);
    expect(studyUids(await dw.searchStudies())).toEqual([CT_STUDY, MR_STUDY]);
    expect(studyUids(await dw.searchStudies({ patientId: "4MR1" }))).toEqual([MR_STUDY]);
    expect(studyUids(await dw.searchStudies({ patientName: "CompressedSamples^CT1" }))).toEqual([CT_STUDY]);
    expect(studyUids(await dw.searchStudies({ patientName: "Compressed*" }))).toEqual([CT_STUDY, MR_STUDY]);
    expect(studyUids(await dw.searchStudies({ studyDate: { from: "2004-01-01", to: "2004-06-30" } }))).toEqual([CT_STUDY]);
    expect(studyUids(await dw.searchStudies({ studyDate: { from: "20040601" } }))).toEqual([MR_STUDY]);
    expect(studyUids(await dw.searchStudies({ studyDate: "20040119" }))).toEqual([CT_STUDY]);
    expect(studyUids(await dw.searchStudies({ modality: "mr" }))).toEqual([MR_STUDY]);
    expect(studyUids(await dw.searchStudies({ studyInstanceUid: CT_STUDY }))).toEqual([CT_STUDY]);
    expect(studyUids(await dw.searchStudies({ accessionNumber: "ACC-MR-1" }))).toEqual([MR_STUDY]);
    expect(await dw.searchStudies({ patientId: "nobody" })).toEqual([]);
  });

  it("pages with limit and offset, and adds includefield attributes", async () => {
    const dw = client(open.dicomweb);
    const first = await dw.searchStudies({ limit: 1 });
    const second = await dw.searchStudies({ limit: 1, offset: 1 });
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect([...studyUids(first), ...studyUids(second)].sort()).toEqual([CT_STUDY, MR_STUDY]);
    const [ct] = await dw.searchStudies({ studyInstanceUid: CT_STUDY, includefield: ["00081030"] });
    expect(firstText(ct!, TAG.StudyDescription)).toBe("e+1");
  });

  it("finds series and instances, with modality at series level", async () => {
    const dw = client(open.dicomweb);
    const series = await dw.searchSeries({ modality: "CT" });
    expect(series.map((s) => firstText(s, TAG.StudyInstanceUID))).toEqual([CT_STUDY]);
    expect((await dw.searchSeries({ studyInstanceUid: MR_STUDY })).map((s) => firstText(s, TAG.SeriesInstanceUID))).toEqual([MR_SERIES]);
    const instances = await dw.searchInstances({ studyInstanceUid: MR_STUDY, seriesInstanceUid: MR_SERIES });
    expect(instances.map((i) => firstText(i, TAG.InstanceNumber)).sort()).toEqual(["1", "2"]);
  });

  it("retrieves metadata as DICOM JSON and instances streamed into the sink, byte for byte", async () => {
    const dw = client(open.dicomweb);
    const metadata = await dw.metadata({ study: MR_STUDY });
    expect(metadata.map((ds) => firstText(ds, TAG.SOPInstanceUID))).toContain(MR_INSTANCE_1);
    const received = new Map<string, { bytes: Uint8Array; contentType: string; streamed: boolean }>();
    const sink = {
      async put(key: string, body: ReadableStream<Uint8Array>, info: { contentType: string }) {
        received.set(key, { bytes: new Uint8Array(await new Response(body).arrayBuffer()), contentType: info.contentType, streamed: body instanceof ReadableStream });
      },
    };
    const stored = await dw.retrieveInstances({ study: MR_STUDY }, sink, "org-1/dicom/");
    expect(stored.map((s) => s.key)).toEqual([`org-1/dicom/${MR_STUDY}/1.dcm`, `org-1/dicom/${MR_STUDY}/2.dcm`]);
    expect([...received.values()].map((r) => sha(r.bytes)).sort()).toEqual([sha(FILES[1]!), sha(FILES[2]!)].sort());
    expect([...received.values()].every((r) => r.streamed && r.contentType === "application/dicom")).toBe(true);
    expect(stored.map((s) => s.bytes).sort()).toEqual([FILES[1]!.length, FILES[2]!.length].sort());
    // One instance alone.
    const one = await dw.retrieveInstances({ study: MR_STUDY, series: MR_SERIES, instance: MR_INSTANCE_1 }, sink);
    expect(one).toHaveLength(1);
  });

  it("gets a rendered JPEG, and a thumbnail where the server has none of its own", async () => {
    const dw = client(open.dicomweb);
    const target = { study: MR_STUDY, series: MR_SERIES, instance: MR_INSTANCE_1 };
    for (const image of [await dw.rendered(target), await dw.thumbnail(target)]) {
      expect(image.contentType).toBe("image/jpeg");
      const bytes = new Uint8Array(await new Response(image.body).arrayBuffer());
      expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    }
  });

  it("maps real metadata to a valid ImagingStudy, field by field, the same as from the files", async () => {
    const metadata = await client(open.dicomweb).metadata({ study: MR_STUDY });
    const endpoint = { reference: "Endpoint/orthanc" };
    const study = imagingStudyFromDicom(metadata, { subject: { reference: "Patient/p1" }, endpoint: [endpoint] });
    expect(study).toEqual({
      resourceType: "ImagingStudy",
      identifier: [
        { system: "urn:dicom:uid", value: `urn:oid:${MR_STUDY}` },
        { type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "ACSN" }] }, value: "ACC-MR-1" },
      ],
      status: "available",
      modality: [{ system: "http://dicom.nema.org/resources/ontology/DCM", code: "MR" }],
      subject: { reference: "Patient/p1" },
      // The file says TimezoneOffsetFromUTC -0400.
      started: "2004-08-26T18:50:59-04:00",
      endpoint: [endpoint],
      numberOfSeries: 1,
      numberOfInstances: 2,
      series: [
        {
          uid: MR_SERIES,
          number: 1,
          modality: { system: "http://dicom.nema.org/resources/ontology/DCM", code: "MR" },
          numberOfInstances: 2,
          instance: [
            { uid: MR_INSTANCE_1, sopClass: { system: "urn:ietf:rfc:3986", code: "urn:oid:1.2.840.10008.5.1.4.1.1.4" }, number: 1 },
            { uid: firstText(part10Dataset(FILES[2]!), TAG.SOPInstanceUID), sopClass: { system: "urn:ietf:rfc:3986", code: "urn:oid:1.2.840.10008.5.1.4.1.1.4" }, number: 2 },
          ],
        },
      ],
    });
    expect(validateResource(study)).toEqual([]);
    expect(validateResource({ ...dicomwebEndpoint(open.dicomweb), id: "orthanc" })).toEqual([]);
    // Part-10 files of the same study map to the same resource (tags read with dicom-parser).
    expect(imagingStudyFromDicom([FILES[1]!, FILES[2]!].map(part10Dataset), { subject: { reference: "Patient/p1" }, endpoint: [endpoint] })).toEqual(study);
    // A QIDO study answer alone gives the study-level fields and counts.
    const qido = await client(open.dicomweb).searchStudies({ studyInstanceUid: CT_STUDY, includefield: ["00081030"] });
    const ct = imagingStudyFromDicom(qido, { subject: { reference: "Patient/p2" } });
    expect([ct.modality, ct.numberOfSeries, ct.numberOfInstances, ct.description, ct.series]).toEqual([
      [{ system: "http://dicom.nema.org/resources/ontology/DCM", code: "CT" }],
      1,
      1,
      "e+1",
      undefined,
    ]);
    expect(validateResource(ct)).toEqual([]);
  });
});

describe("errors against Orthanc", () => {
  it("a study that does not exist is DICOMWEB_NOT_FOUND", async () => {
    const err = await failure(client(open.dicomweb).metadata({ study: "1.2.3.4" }));
    expect([err.code, err.remoteStatus, err.status]).toEqual(["DICOMWEB_NOT_FOUND", 404, 404]);
    expect(err.message).toMatch(/Metadata of study 1\.2\.3\.4: HTTP 404/);
  });

  it("a server that is down is DICOMWEB_UNREACHABLE", async () => {
    const err = await failure(client(`http://127.0.0.1:${await closedPort()}/dicom-web`).searchStudies());
    expect([err.code, err.status]).toEqual(["DICOMWEB_UNREACHABLE", 502]);
  });

  it("with auth on: no or wrong credentials are DICOMWEB_UNAUTHORIZED, basic auth works", async () => {
    for (const auth of [undefined, { kind: "basic", username: "alice", password: "wrong" }, { kind: "bearer", token: "nope" }] as const) {
      const err = await failure(client(secured.dicomweb, auth).searchStudies());
      expect([err.code, err.remoteStatus]).toEqual(["DICOMWEB_UNAUTHORIZED", 401]);
    }
    expect(await client(secured.dicomweb, { kind: "basic", username: "alice", password: "s3cret" }).searchStudies()).toEqual([]);
  });

  it("a STOW part that is not DICOM is refused with the server's status, nothing stored", async () => {
    const before = await client(open.dicomweb).searchInstances();
    const err = await failure(client(open.dicomweb).store([new TextEncoder().encode("this is not a DICOM file")]));
    expect([err.code, err.remoteStatus]).toEqual(["DICOMWEB_REJECTED", 400]);
    expect(err.message).toMatch(/stored none of the instances/);
    expect(await client(open.dicomweb).searchInstances()).toHaveLength(before.length);
  });

  it("STOW outcomes are exact: a 409 that stored some is a result, a 409 that stored none DICOMWEB_CONFLICT", async () => {
    const [ct, mr] = [FILES[0]!, FILES[1]!];
    // Into the CT study: the CT instance is stored, the MR one (another study) refused; Orthanc answers 409.
    const partial = await client(open.dicomweb).store([ct, mr], CT_STUDY);
    expect(partial.status).toBe(409);
    expect(partial.stored.map((s) => s.sopInstanceUid)).toEqual([firstText(part10Dataset(ct), TAG.SOPInstanceUID)]);
    expect(partial.failed).toEqual([{ sopClassUid: "1.2.840.10008.5.1.4.1.1.4", sopInstanceUid: MR_INSTANCE_1, reason: 0x0110, reasonText: "processing failure (0x0110)" }]);
    // Into a study none of them belongs to: all refused.
    const err = await failure(client(open.dicomweb).store([ct], "1.2.3.4"));
    expect([err.code, err.status, err.remoteStatus]).toEqual(["DICOMWEB_CONFLICT", 409, 409]);
    expect(err.details).toEqual([{ path: firstText(part10Dataset(ct), TAG.SOPInstanceUID), message: "processing failure (0x0110)" }]);
  });

  it("a STOW whose connection drops after sending began is DICOMWEB_CONNECTION_LOST; one never connected DICOMWEB_UNREACHABLE", async () => {
    // A peer that answers queries but resets a STOW after its first KiB.
    const server = createServer(droppingPeer);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const lost = await failure(client(`http://127.0.0.1:${port}/dicom-web`).store(FILES));
      expect([lost.code, lost.status, lost.remoteStatus]).toEqual(["DICOMWEB_CONNECTION_LOST", 502, undefined]);
      expect(lost.message).toBe("STOW: the connection closed before the server answered, twice (the server is up: it answers a query); it may have stored some instances, and sending them again is safe");
    } finally {
      server.close();
    }
    const down = await failure(client(`http://127.0.0.1:${await closedPort()}/dicom-web`).store(FILES));
    expect([down.code, down.status]).toEqual(["DICOMWEB_UNREACHABLE", 502]);
  });

  it("every request goes through the outbound guard: loopback is refused without OUTBOUND_ALLOW", async () => {
    const guarded = new DicomwebClient(open.dicomweb, guardedTransport({ policy: PUBLIC_ONLY }));
    await expect(guarded.searchStudies()).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED", status: 400 });
  });
});
