// Binary content lives in R2; the D1 row keeps the resource without `data` and a pointer in
// meta.extension, so rows stay far below D1's 2 MB limit whatever the attachment size.
import type { Resource } from "../port";

const POINTER_URL = "urn:cdis:binary-r2-key";

interface MetaWithExtension {
  extension?: { url: string; valueString?: string }[];
  [k: string]: unknown;
}

/** Moves Binary.data to R2 under a per-version key and returns the resource to store in D1. */
export async function offloadBinary(bucket: R2Bucket, orgId: string, resource: Resource): Promise<Resource> {
  if (resource.resourceType !== "Binary" || typeof resource.data !== "string") return resource;
  const key = `fhir/${orgId}/Binary/${resource.id}/${resource.meta?.versionId}`;
  await bucket.put(key, resource.data, { httpMetadata: { contentType: String(resource.contentType ?? "application/octet-stream") } });
  const { data: _data, ...rest } = resource;
  const meta = (rest.meta ?? {}) as MetaWithExtension;
  const withPointer: MetaWithExtension = { ...meta, extension: [...(meta.extension ?? []), { url: POINTER_URL, valueString: key }] };
  return { ...rest, meta: withPointer as Resource["meta"] };
}

/** Restores Binary.data from R2 for a stored Binary; other resources pass through. */
export async function hydrateBinary(bucket: R2Bucket, resource: Resource): Promise<Resource> {
  if (resource.resourceType !== "Binary") return resource;
  const meta = (resource.meta ?? {}) as MetaWithExtension;
  const pointer = meta.extension?.find((e) => e.url === POINTER_URL)?.valueString;
  if (!pointer) return resource;
  const object = await bucket.get(pointer);
  const extension = meta.extension?.filter((e) => e.url !== POINTER_URL) ?? [];
  const { extension: _ext, ...metaRest } = meta;
  const out: Resource = { ...resource, meta: extension.length ? { ...metaRest, extension } : metaRest };
  if (object) out.data = await object.text();
  return out;
}
