// The DICOMweb client against a scripted network: what it sends (QIDO parameters, auth,
// STOW content type), what it refuses before sending, OAuth2 token caching, and how each
// kind of answer a real server rarely gives on demand (409, 413, 202, 5xx, garbage)
// becomes a typed error or result.
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseOutboundAllow } from "../../../../src/platform/outbound/policy";
import { type DicomwebAuth, DicomwebClient, DicomwebError, guardedTransport } from "../../../../src/standards/dicomweb";
import { qidoRequest, queryText } from "../../../../src/standards/dicomweb/qido";
import { failure } from "./support";

const BASE = "http://127.0.0.1:8042/dicom-web";
const POLICY = parseOutboundAllow("127.0.0.1").policy;

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body?: string;
  /** Whether the body reached the network as a stream (not buffered first). */
  streamed: boolean;
}

/** A client whose network answers with `answer` and records every request. */
function scripted(answer: (call: Call) => Response | Promise<Response>, auth?: DicomwebAuth) {
  const calls: Call[] = [];
  const network = (async (input: string, init: RequestInit = {}) => {
    const body = init.body === undefined || init.body === null ? undefined : await new Response(init.body as BodyInit).text();
    const streamed = init.body instanceof ReadableStream;
    const call = { url: String(input), method: init.method ?? "GET", headers: new Headers(init.headers), streamed, ...(body === undefined ? {} : { body }) };
    calls.push(call);
    return answer(call);
  }) as typeof fetch;
  return { calls, client: new DicomwebClient(BASE, guardedTransport({ policy: POLICY, network, ...(auth ? { auth } : {}) })) };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/dicom+json" } });


afterEach(() => {
  vi.useRealTimers();
});

describe("QIDO requests", () => {
  it("writes each criterion as its tag, dates as DICOM ranges, modality per level", () => {
    const { path, params } = qidoRequest("studies", {
      patientId: "MRN-1",
      patientName: "Doe^J*",
      studyDate: { from: "2024-01-01", to: "20240131" },
      modality: "ct",
      studyInstanceUid: "1.2.3",
      accessionNumber: "A1",
      limit: 10,
      offset: 20,
      includefield: ["00081030", "StudyDescription"],
    });
    expect(path).toBe("studies");
    expect([...params]).toEqual([
      ["0020000D", "1.2.3"],
      ["00100020", "MRN-1"],
      ["00100010", "Doe^J*"],
      ["00080020", "20240101-20240131"],
      ["00080061", "CT"],
      ["00080050", "A1"],
      ["limit", "10"],
      ["offset", "20"],
      ["includefield", "00081030"],
      ["includefield", "StudyDescription"],
    ]);
    expect(qidoRequest("series", { studyInstanceUid: "1.2.3", modality: "MR" })).toEqual({ path: "studies/1.2.3/series", params: new URLSearchParams({ "00080060": "MR" }) });
    expect(qidoRequest("instances", { studyInstanceUid: "1.2", seriesInstanceUid: "1.2.5" }).path).toBe("studies/1.2/series/1.2.5/instances");
    expect(qidoRequest("studies", { studyDate: { to: "2024-01-31" } }).params.get("00080020")).toBe("-20240131");
  });

  it("leaves DICOM's ^ * ? unencoded and encodes what would change the query", () => {
    expect(queryText(new URLSearchParams([["00100010", "Doe^Jo hn*"], ["00100020", "a&b=c+d%"]]))).toBe("00100010=Doe^Jo%20hn*&00100020=a%26b%3Dc%2Bd%25");
  });

  it("refuses malformed criteria and UIDs before anything is sent", async () => {
    const { calls, client } = scripted(() => json([]));
    const bad = [
      client.searchStudies({ studyInstanceUid: "../../patients" }),
      client.searchSeries({ studyInstanceUid: "1.2.3/../4" }),
      client.searchStudies({ studyDate: "2024-13-01" }),
      client.searchStudies({ studyDate: { from: "20240201", to: "20240101" } }),
      client.searchStudies({ limit: 0 }),
      client.searchStudies({ offset: -1 }),
      client.searchStudies({ includefield: ["0008,1030"] }),
      client.searchStudies({ patientId: "a\\b" }),
      client.metadata({ study: "1.2", instance: "1.3" }),
      client.store([]),
    ];
    for (const p of bad) expect((await failure(p)).code).toBe("DICOMWEB_INVALID_REQUEST");
    expect(calls).toEqual([]);
    expect(() => new DicomwebClient("ftp://pacs/dicom-web", async () => new Response())).toThrow(DicomwebError);
  });

  it("answers [] for 204 and a typed error for a body that is not DICOM JSON", async () => {
    expect(await scripted(() => new Response(null, { status: 204 })).client.searchStudies()).toEqual([]);
    expect((await failure(scripted(() => new Response("<html>")).client.searchStudies())).code).toBe("DICOMWEB_BAD_RESPONSE");
    expect((await failure(scripted(() => json({ not: "an array" })).client.searchStudies())).code).toBe("DICOMWEB_BAD_RESPONSE");
    expect((await failure(scripted(() => json([{ PatientID: "x" }])).client.searchStudies())).code).toBe("DICOMWEB_BAD_RESPONSE");
  });
});

describe("auth", () => {
  it("sends basic and bearer credentials", async () => {
    const basic = scripted(() => json([]), { kind: "basic", username: "u", password: "p" });
    await basic.client.searchStudies();
    expect(basic.calls[0]?.headers.get("authorization")).toBe(`Basic ${btoa("u:p")}`);
    const bearer = scripted(() => json([]), { kind: "bearer", token: "t0k" });
    await bearer.client.searchStudies();
    expect(bearer.calls[0]?.headers.get("authorization")).toBe("Bearer t0k");
    const none = scripted(() => json([]));
    await none.client.searchStudies();
    expect(none.calls[0]?.headers.has("authorization")).toBe(false);
  });

  it("fetches an OAuth2 client-credentials token once, until it expires, per set of credentials", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let issued = 0;
    const answer = (call: Call) => (call.url.endsWith("/token") ? json({ access_token: `tok-${++issued}`, expires_in: 120 }) : json([]));
    const auth = { kind: "oauth2_client_credentials", tokenUrl: "http://127.0.0.1:9/token", clientId: "c", clientSecret: "s1", scope: "read" } as const;
    const { calls, client } = scripted(answer, auth);
    await client.searchStudies();
    await client.searchStudies();
    const token = calls.find((c) => c.url.endsWith("/token"));
    expect(token?.body).toBe("grant_type=client_credentials&scope=read");
    expect(token?.headers.get("authorization")).toBe(`Basic ${btoa("c:s1")}`);
    expect(calls.filter((c) => c.url.startsWith(BASE)).map((c) => c.headers.get("authorization"))).toEqual(["Bearer tok-1", "Bearer tok-1"]);
    // Another secret for the same client id never reuses that token.
    const other = scripted(answer, { ...auth, clientSecret: "s2" });
    await other.client.searchStudies();
    expect(other.calls.at(-1)?.headers.get("authorization")).toBe("Bearer tok-2");
    // Renewed a minute before it expires.
    vi.setSystemTime(Date.now() + 61_000);
    await client.searchStudies();
    expect(calls.at(-1)?.headers.get("authorization")).toBe("Bearer tok-3");
  });

  it("a refused token request is DICOMWEB_UNAUTHORIZED; a token URL the guard refuses is never called", async () => {
    const refused = scripted((call) => (call.url.endsWith("/token") ? json({ error: "invalid_client" }, 401) : json([])), {
      kind: "oauth2_client_credentials",
      tokenUrl: "http://127.0.0.1:9/token",
      clientId: "c",
      clientSecret: "bad",
    });
    expect((await failure(refused.client.searchStudies())).code).toBe("DICOMWEB_UNAUTHORIZED");
    const guarded = scripted(() => json([]), { kind: "oauth2_client_credentials", tokenUrl: "http://10.0.0.1/token", clientId: "c", clientSecret: "s" });
    await expect(guarded.client.searchStudies()).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
    expect(guarded.calls).toEqual([]);
  });
});

describe("STOW answers", () => {
  const failed = (uid: string, reason: number) => ({
    "00081150": { vr: "UI", Value: ["1.2.840.10008.5.1.4.1.1.2"] },
    "00081155": { vr: "UI", Value: [uid] },
    "00081197": { vr: "US", Value: [reason] },
  });
  const stored = (uid: string) => ({ "00081150": { vr: "UI", Value: ["1.2.840.10008.5.1.4.1.1.2"] }, "00081155": { vr: "UI", Value: [uid] } });

  it("streams multipart/related with type=application/dicom, one part per instance", async () => {
    const { calls, client } = scripted(() => json({ "00081199": { vr: "SQ", Value: [stored("1.2.3")] } }));
    const result = await client.store([new Uint8Array([1, 2, 3])], "1.2");
    expect(calls[0]?.url).toBe(`${BASE}/studies/1.2`);
    expect(calls[0]?.streamed).toBe(true);
    expect(calls[0]?.headers.get("content-type")).toMatch(/^multipart\/related; type="application\/dicom"; boundary=dicomweb-/);
    expect(result).toEqual({ status: 200, stored: [{ sopClassUid: "1.2.840.10008.5.1.4.1.1.2", sopInstanceUid: "1.2.3" }], failed: [] });
  });

  it("202: reports what was stored and what failed, with the reason", async () => {
    const { client } = scripted(() => json({ "00081199": { vr: "SQ", Value: [stored("1.1")] }, "00081198": { vr: "SQ", Value: [failed("1.2", 0xa900)] } }, 202));
    const result = await client.store([new Uint8Array(1), new Uint8Array(1)]);
    expect(result.status).toBe(202);
    expect(result.stored.map((s) => s.sopInstanceUid)).toEqual(["1.1"]);
    expect(result.failed).toEqual([{ sopClassUid: "1.2.840.10008.5.1.4.1.1.2", sopInstanceUid: "1.2", reason: 0xa900, reasonText: "data set does not match SOP class (0xA900)" }]);
  });

  it("a query or retrieve whose connection was lost is sent once more at once (a pooled connection the server was closing); twice lost is unreachable", async () => {
    let gets = 0;
    const once = scripted(() => {
      if (++gets === 1) throw new TypeError("Network connection lost.");
      return json([]);
    });
    expect(await once.client.searchStudies({})).toEqual([]);
    expect(once.calls.map((c) => c.method)).toEqual(["GET", "GET"]);
    const never = scripted(() => {
      throw new TypeError("Network connection lost.");
    });
    expect((await failure(never.client.searchStudies({}))).code).toBe("DICOMWEB_UNREACHABLE");
    expect(never.calls).toHaveLength(2);
  });

  it("a connection lost on a server that answers is sent once more with fresh bodies (a pooled connection the server was closing)", async () => {
    let posts = 0;
    const { calls, client } = scripted((call) => {
      if (call.method === "GET") return json([]);
      if (++posts === 1) throw new TypeError("Network connection lost.");
      return json({ "00081199": { vr: "SQ", Value: [stored("1.2.3")] } });
    });
    let made = 0;
    const result = await client.store(() => {
      made++;
      return [new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new Uint8Array([7, 7]));
            c.close();
          },
        })];
    });
    expect(result.stored.map((s) => s.sopInstanceUid)).toEqual(["1.2.3"]);
    expect([made, calls.map((c) => c.method)]).toEqual([2, ["POST", "GET", "POST"]]);
    for (const post of [calls[0], calls[2]]) expect(post?.body).toContain("\x07\x07");
  });

  it("409 is DICOMWEB_CONFLICT with each instance's reason; 413 DICOMWEB_TOO_LARGE; 5xx DICOMWEB_SERVER_ERROR", async () => {
    const conflict = await failure(scripted(() => json({ "00081198": { vr: "SQ", Value: [failed("1.5", 0xc409)] } }, 409)).client.store([new Uint8Array(1)]));
    expect([conflict.code, conflict.status, conflict.remoteStatus]).toEqual(["DICOMWEB_CONFLICT", 409, 409]);
    expect(conflict.details).toEqual([{ path: "1.5", message: "conflict: differing patient, study or series attributes (0xC409)" }]);
    const large = await failure(scripted(() => new Response("too big", { status: 413 })).client.store([new Uint8Array(1)]));
    expect([large.code, large.status]).toEqual(["DICOMWEB_TOO_LARGE", 413]);
    const down = await failure(scripted(() => new Response("boom", { status: 503 })).client.store([new Uint8Array(1)]));
    expect([down.code, down.status, down.remoteStatus]).toEqual(["DICOMWEB_SERVER_ERROR", 502, 503]);
    const garbage = await failure(scripted(() => new Response("ok!")).client.store([new Uint8Array(1)]));
    expect(garbage.code).toBe("DICOMWEB_BAD_RESPONSE");
  });
});

describe("WADO-RS answers", () => {
  it("a malformed multipart response is DICOMWEB_BAD_RESPONSE, not the caller's fault", async () => {
    const { client } = scripted(() => new Response("--x\r\n\r\ntruncated", { headers: { "content-type": 'multipart/related; type="application/dicom"; boundary=x' } }));
    const sink = { put: async (_k: string, body: ReadableStream<Uint8Array>) => void (await new Response(body).arrayBuffer()) };
    const err = await failure(client.retrieveInstances({ study: "1.2" }, sink));
    expect([err.code, err.status]).toEqual(["DICOMWEB_BAD_RESPONSE", 502]);
    const noBoundary = await failure(scripted(() => new Response("x", { headers: { "content-type": "application/dicom" } })).client.retrieveInstances({ study: "1.2" }, sink));
    expect(noBoundary.code).toBe("DICOMWEB_BAD_RESPONSE");
  });

  it("asks for instances as multipart/related; type=application/dicom", async () => {
    const { calls, client } = scripted(() => new Response("--x--", { headers: { "content-type": "multipart/related; boundary=x" } }));
    expect(await client.retrieveInstances({ study: "1.2", series: "1.3" }, { put: async () => {} })).toEqual([]);
    expect([calls[0]?.url, calls[0]?.headers.get("accept")]).toEqual([`${BASE}/studies/1.2/series/1.3`, 'multipart/related; type="application/dicom"']);
  });
});
