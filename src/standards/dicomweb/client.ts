// A DICOMweb client (PS3.18) over a transport that goes through the outbound guard:
// QIDO-RS searches, WADO-RS metadata, instances streamed to a caller's sink, rendered
// and thumbnail images, and STOW-RS. Every failure is a DicomwebError (or the guard's
// own ApiError); nothing is thrown raw. Each method is what one pipeline node needs, so
// a node is a thin wrapper: build the client from its connector, call, map the result.
import { type DicomJsonDataset, datasetsOf } from "./dicom-json";
import type { FieldError } from "../../platform/errors";
import { badResponse, DicomwebError, type DicomwebErrorCode, invalidRequest } from "./errors";
import { counting } from "./multipart/bytes";
import { readMultipartBody } from "./multipart/reader";
import { type PartBodySource, writeMultipart } from "./multipart/writer";
import { type QidoLevel, type QidoQuery, qidoRequest, queryText } from "./qido";
import { type StowResult, stowOutcome } from "./stow";
import type { DicomwebTransport } from "./transport";
import { checkUid } from "./uid";

export const DICOM_JSON = "application/dicom+json";
const THUMBNAIL_SIZE = 128;

/** The only form of WADO-RS instances every server takes (a bare application/dicom gets 400 from Orthanc). */
export const MULTIPART_DICOM = 'multipart/related; type="application/dicom"';

/** A study, or a series in it, or an instance in that. */
export interface DicomTarget {
  study: string;
  series?: string;
  instance?: string;
}

/** Where retrieved instances go (an R2 bucket in a node): one call per instance, streamed. */
export interface InstanceSink {
  put(key: string, body: ReadableStream<Uint8Array>, info: { contentType: string; size?: number }): Promise<void>;
}

export interface StoredObject {
  key: string;
  bytes: number;
  contentType: string;
  /** The part's Content-Location, when the server sent one. */
  contentLocation?: string;
}

export interface RenderedImage {
  contentType: string;
  body: ReadableStream<Uint8Array>;
}

/**
 * The instances a STOW sends: bytes, or a function giving them afresh for each attempt
 * (streams can be read once, and a lost connection is retried).
 */
export type StowInstances = readonly Exclude<PartBodySource, ReadableStream<Uint8Array>>[] | (() => Iterable<PartBodySource> | AsyncIterable<PartBodySource>);

export class DicomwebClient {
  readonly baseUrl: string;

  /** `baseUrl` is the DICOMweb root, e.g. http://pacs:8042/dicom-web. */
  constructor(
    baseUrl: string,
    private readonly transport: DicomwebTransport,
  ) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw invalidRequest(`DICOMweb base URL "${baseUrl}" is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidRequest(`DICOMweb base URL must be http(s), not ${url.protocol}`);
    if (url.search || url.hash) throw invalidRequest("DICOMweb base URL must not have a query or fragment");
    this.baseUrl = url.href.replace(/\/+$/, "");
  }

  /** QIDO-RS at `level`; an empty list when nothing matches (204 or []). */
  async search(level: QidoLevel, query: QidoQuery = {}): Promise<DicomJsonDataset[]> {
    const { path, params } = qidoRequest(level, query);
    const qs = queryText(params);
    const res = await this.call(`QIDO ${level}`, `${path}${qs ? `?${qs}` : ""}`, { headers: { accept: DICOM_JSON } });
    return datasetsOf(await this.json(res, `QIDO ${level}`), `QIDO ${level}`);
  }

  searchStudies = (query?: QidoQuery) => this.search("studies", query);
  searchSeries = (query?: QidoQuery) => this.search("series", query);
  searchInstances = (query?: QidoQuery) => this.search("instances", query);

  /** WADO-RS metadata: one DICOM JSON dataset per instance of the target. */
  async metadata(target: DicomTarget): Promise<DicomJsonDataset[]> {
    const what = `Metadata of ${describe(target)}`;
    const res = await this.call(what, `${targetPath(target)}/metadata`, { headers: { accept: DICOM_JSON } });
    return datasetsOf(await this.json(res, what), what);
  }

  /**
   * WADO-RS instances of the target, each streamed into `sink` under
   * `${keyPrefix}${study}/${n}.dcm` as the multipart response is read: nothing is held whole.
   */
  async retrieveInstances(target: DicomTarget, sink: InstanceSink, keyPrefix = ""): Promise<StoredObject[]> {
    const what = `Instances of ${describe(target)}`;
    const res = await this.call(what, targetPath(target), { headers: { accept: MULTIPART_DICOM } });
    if (!res.body) throw badResponse(`${what}: the server sent no body`, res.status);
    const stored: StoredObject[] = [];
    try {
      for await (const part of readMultipartBody(res.body, res.headers.get("content-type"))) {
        const key = `${keyPrefix}${target.study}/${stored.length + 1}.dcm`;
        const contentType = part.contentType ?? "application/dicom";
        const declared = Number(part.headers.get("content-length") ?? Number.NaN);
        const counted = counting(part.body);
        await sink.put(key, counted.stream, Number.isInteger(declared) ? { contentType, size: declared } : { contentType });
        const bytes = counted.bytes();
        const location = part.headers.get("content-location");
        stored.push(location ? { key, bytes, contentType, contentLocation: location } : { key, bytes, contentType });
      }
    } catch (e) {
      // A malformed body from the server is the server's fault, not our caller's input.
      if (e instanceof DicomwebError && e.code === "MULTIPART_INVALID") throw badResponse(`${what}: ${e.message}`, res.status);
      throw e;
    }
    return stored;
  }

  /** A rendered image of the target (image/jpeg unless `accept` says otherwise), where the server offers one. */
  rendered(target: DicomTarget, accept = "image/jpeg"): Promise<RenderedImage> {
    return this.image(target, "rendered", accept);
  }

  /** A thumbnail of the target, where the server offers one. */
  thumbnail(target: DicomTarget, accept = "image/jpeg"): Promise<RenderedImage> {
    return this.image(target, "thumbnail", accept);
  }

  /**
   * STOW-RS: stores the instances (Part-10 files) in one multipart/related request,
   * into `study` when given. Answers per instance what was stored and what failed (a 409
   * that stored some, as Orthanc sends for a partial store, is such an answer too); a 409
   * that stored none is DICOMWEB_CONFLICT with the reasons as details. A connection that
   * closes after the request started is sent once more, then DICOMWEB_CONNECTION_LOST (retryable).
   */
  async store(instances: StowInstances, study?: string): Promise<StowResult> {
    if (Array.isArray(instances) && instances.length === 0) throw invalidRequest("STOW needs at least one instance");
    const path = study === undefined ? "studies" : `studies/${checkUid(study, "study")}`;
    const res = await this.stow(path, typeof instances === "function" ? instances : () => instances);
    const text = await res.text();
    const outcome = stowOutcome(res.status, parseStowBody(text, res.ok));
    if (res.ok || (res.status === 409 && outcome.stored.length > 0)) return outcome;
    // 409 (all refused), 400 (unreadable parts) and others may still say which instance failed and why.
    const why = outcome.failed.map((f) => f.reasonText).join("; ") || said(text);
    const details = outcome.failed.map((f, i) => ({ path: f.sopInstanceUid ?? `instance[${i}]`, message: f.reasonText }));
    throw errorFor(res.status, `STOW: HTTP ${res.status}, the server stored ${outcome.stored.length ? "only some" : "none"} of the instances${why ? `: ${why}` : ""}`, details);
  }

  /**
   * Sends the STOW request; a connection lost on a server that still answers is sent once
   * more with the bodies made afresh. The first attempt may have gone out on a pooled
   * connection the server was closing (its keep-alive timeout: Orthanc's is 1 s), which
   * looks exactly like a drop, and storing the same instances again is safe (a server
   * keys them by SOP Instance UID).
   */
  private async stow(path: string, instances: () => Iterable<PartBodySource> | AsyncIterable<PartBodySource>): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const multipart = writeMultipart(parts(instances()), { type: "application/dicom" });
      try {
        return await this.send(path, { method: "POST", headers: { accept: DICOM_JSON, "content-type": multipart.contentType }, body: multipart.body });
      } catch (e) {
        // workerd says "Network connection lost." for a refused connection and for one dropped
        // mid-request alike (and reads the body ahead either way): a server that answers a
        // probe now was reached, and dropped this request.
        if (!(e instanceof DicomwebError) || e.code !== "DICOMWEB_UNREACHABLE" || !(await this.answers())) throw e;
        if (attempt === 2) {
          throw new DicomwebError("DICOMWEB_CONNECTION_LOST", "STOW: the connection closed before the server answered, twice (the server is up: it answers a query); it may have stored some instances, and sending them again is safe");
        }
      }
    }
  }

  private async image(target: DicomTarget, kind: "rendered" | "thumbnail", accept: string): Promise<RenderedImage> {
    const what = `${kind === "rendered" ? "Rendered image" : "Thumbnail"} of ${describe(target)}`;
    let res = await this.send(`${targetPath(target)}/${kind}`, { headers: { accept } });
    // Thumbnails are optional in DICOMweb (Orthanc 1.7 has none): a small rendered image stands in.
    if (kind === "thumbnail" && (res.status === 404 || res.status === 406 || res.status === 501)) {
      await res.body?.cancel();
      res = await this.send(`${targetPath(target)}/rendered?viewport=${THUMBNAIL_SIZE},${THUMBNAIL_SIZE}`, { headers: { accept } });
    }
    if (!res.ok) throw await remoteError(res, what);
    if (!res.body) throw badResponse(`${what}: the server sent no body`, res.status);
    return { contentType: res.headers.get("content-type") ?? accept, body: res.body };
  }

  /** Whether the server answers at all (any status): a one-study QIDO query. */
  private async answers(): Promise<boolean> {
    try {
      const res = await this.send("studies?limit=1", { headers: { accept: DICOM_JSON } });
      await res.body?.cancel();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends one request. A bodyless one (QIDO, WADO, the probe) that did not reach the server is
   * sent once more at once: the first may have gone out on a pooled keep-alive connection the
   * server was closing (Orthanc closes idle ones after 1 s), which workerd reports exactly as a
   * refused connection ("Network connection lost."). Browsers and Go's HTTP client retry an
   * idempotent request on a reused connection the same way; a STOW has its own rule (stow).
   */
  private async send(path: string, init: RequestInit): Promise<Response> {
    const url = `${this.baseUrl}/${path}`;
    if (init.body !== undefined && init.body !== null) return this.transport(url, init);
    try {
      return await this.transport(url, init);
    } catch (e) {
      if (!(e instanceof DicomwebError) || e.code !== "DICOMWEB_UNREACHABLE") throw e;
      return this.transport(url, init);
    }
  }

  /** Sends and answers a 2xx response; anything else is the typed error for its status. */
  private async call(what: string, path: string, init: RequestInit): Promise<Response> {
    const res = await this.send(path, init);
    if (!res.ok) throw await remoteError(res, what);
    return res;
  }

  private async json(res: Response, what: string): Promise<unknown> {
    if (res.status === 204) return [];
    const text = await res.text();
    if (!text.trim()) return [];
    try {
      return JSON.parse(text);
    } catch {
      throw badResponse(`${what}: the response is not JSON`, res.status);
    }
  }
}

async function* parts(instances: Iterable<PartBodySource> | AsyncIterable<PartBodySource>) {
  for await (const body of instances) yield { body };
}

function targetPath(target: DicomTarget): string {
  let path = `studies/${checkUid(target.study, "study")}`;
  if (target.series !== undefined) path += `/series/${checkUid(target.series, "series")}`;
  if (target.instance !== undefined) {
    if (target.series === undefined) throw invalidRequest("An instance needs its series");
    path += `/instances/${checkUid(target.instance, "instance")}`;
  }
  return path;
}

function describe(target: DicomTarget): string {
  if (target.instance) return `instance ${target.instance}`;
  if (target.series) return `series ${target.series}`;
  return `study ${target.study}`;
}

/**
 * A STOW response body as DICOM JSON (one dataset, or an array of one); none when empty.
 * A success must be DICOM JSON; an error may be any page (its status says what happened).
 */
function parseStowBody(text: string, ok: boolean): DicomJsonDataset | undefined {
  if (!text.trim()) return undefined;
  try {
    const json: unknown = JSON.parse(text);
    return datasetsOf(Array.isArray(json) ? json : [json], "STOW response")[0];
  } catch (e) {
    if (!ok) return undefined;
    throw e instanceof DicomwebError ? e : badResponse("STOW: the response is not DICOM JSON");
  }
}

const CODE_BY_STATUS: Record<number, DicomwebErrorCode> = {
  401: "DICOMWEB_UNAUTHORIZED",
  403: "DICOMWEB_UNAUTHORIZED",
  404: "DICOMWEB_NOT_FOUND",
  406: "DICOMWEB_NOT_SUPPORTED",
  409: "DICOMWEB_CONFLICT",
  413: "DICOMWEB_TOO_LARGE",
  415: "DICOMWEB_NOT_SUPPORTED",
  501: "DICOMWEB_NOT_SUPPORTED",
};

/** The typed error for a non-2xx status. */
export function errorFor(status: number, message: string, details: FieldError[] = []): DicomwebError {
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? "DICOMWEB_SERVER_ERROR" : "DICOMWEB_REJECTED");
  return new DicomwebError(code, message, status, details);
}

/** The start of a server's own error text, on one line. */
const said = (text: string): string => text.replace(/\s+/g, " ").trim().slice(0, 300);

/** The typed error for a non-2xx answer, with the start of the server's own message. */
export async function remoteError(res: Response, what: string): Promise<DicomwebError> {
  const text = said(await res.text().catch(() => ""));
  return errorFor(res.status, `${what}: HTTP ${res.status}${text ? ` (${text})` : ""}`);
}
