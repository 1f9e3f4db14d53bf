// The DICOMweb module inside workerd (no Node-only APIs, dicom-parser bundled): multipart
// written and read back, a Part-10 file's tags mapped to an ImagingStudy, and the
// deployment's outbound guard (OUTBOUND_ALLOW) in front of every request, the OAuth2
// token request and its redirects included.
import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { validateResource } from "../../src/features/fhir/validate";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import {
  DicomwebClient,
  dicomwebTransportFor,
  imagingStudyFromDicom,
  part10Dataset,
  readMultipartBody,
  writeMultipart,
} from "../../src/standards/dicomweb";

const forbiddenHits = async () => ((await (await fetch(`${inject("forbiddenUrl")}/hits`)).json()) as { hits: number }).hits;

/** A minimal explicit-VR little-endian Part-10 file with the given (tag, VR, value) elements. */
function part10(elements: [number, number, string, string][]): Uint8Array {
  const bytes: number[] = [...new Uint8Array(128), ...new TextEncoder().encode("DICM")];
  const element = (group: number, el: number, vr: string, value: string) => {
    const v = [...new TextEncoder().encode(value.length % 2 ? `${value}${vr === "UI" ? "\0" : " "}` : value)];
    bytes.push(group & 0xff, group >> 8, el & 0xff, el >> 8, vr.charCodeAt(0), vr.charCodeAt(1), v.length & 0xff, v.length >> 8, ...v);
  };
  element(0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1");
  for (const [group, el, vr, value] of elements) element(group, el, vr, value);
  return new Uint8Array(bytes);
}

describe("DICOMweb in the Worker runtime", () => {
  it("writes and reads multipart/related, and maps a Part-10 file to a valid ImagingStudy", async () => {
    const file = part10([
      [0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2"],
      [0x0008, 0x0018, "UI", "1.2.3.4.5.1"],
      [0x0008, 0x0020, "DA", "20240131"],
      [0x0008, 0x0060, "CS", "CT"],
      [0x0020, 0x000d, "UI", "1.2.3.4"],
      [0x0020, 0x000e, "UI", "1.2.3.4.5"],
    ]);
    const written = writeMultipart([{ body: file }, { body: file }], { type: "application/dicom" });
    const read: Uint8Array[] = [];
    for await (const part of readMultipartBody(written.body, written.contentType)) read.push(new Uint8Array(await new Response(part.body).arrayBuffer()));
    expect(read).toEqual([file, file]);
    const study = imagingStudyFromDicom([part10Dataset(read[0]!)], { subject: { reference: "Patient/p" } });
    expect([study.identifier[0]?.value, study.started, study.series?.[0]?.modality.code, study.numberOfInstances]).toEqual(["urn:oid:1.2.3.4", "2024-01-31", "CT", 1]);
    expect(validateResource(study)).toEqual([]);
  });

  it("sends every request through the deployment's outbound guard, token requests and their redirects too", async () => {
    const before = await forbiddenHits();
    const direct = new DicomwebClient(`${inject("forbiddenUrl")}/dicom-web`, dicomwebTransportFor(env));
    await expect(direct.searchStudies()).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
    // The token endpoint is allowed, but redirects to the forbidden host: refused at that hop.
    const viaToken = new DicomwebClient(
      `${inject("redirectorUrl")}/dicom-web`,
      dicomwebTransportFor(env, { kind: "oauth2_client_credentials", tokenUrl: `${inject("redirectorUrl")}/token?to=${inject("forbiddenUrl")}/token`, clientId: "c", clientSecret: "s" }),
    );
    await expect(viaToken.searchStudies()).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
    expect(await forbiddenHits()).toBe(before);
  });

  it("sends a streamed request body from workerd (as a STOW does)", async () => {
    const fetch = guardedFetch({ policy: outboundPolicyOf(env), streamBodies: true });
    const { body, contentType } = writeMultipart([{ body: "instance" }], { type: "application/dicom" });
    const res = await fetch(`${inject("redirectorUrl")}/dicom-web/studies`, { method: "POST", headers: { "content-type": contentType }, body });
    expect(await res.json()).toEqual({ ok: true });
  });
});
