// The store's per-resource size limit. A resource is a row, twice (current and history), read
// whole by every search page, history, $everything and export; large content belongs in a
// Binary, whose data is kept in R2 (binary.ts), referenced from an Attachment.url.
import { utf8Exceeds, utf8Length } from "../../../platform/db/size";
import { tooLargeToStore } from "../../../platform/errors";
import type { Resource } from "../port";

/** Bytes of JSON one stored resource may take (as Medplum's default maxJsonSize); Binary.data does not count. */
export const MAX_RESOURCE_BYTES = 1024 * 1024;

/** The resource's JSON as stored (Binary data already moved out); 413 when it is over the limit. */
export function checkResourceSize(resource: Resource): string {
  const json = JSON.stringify(resource);
  if (!utf8Exceeds(json, MAX_RESOURCE_BYTES)) return json;
  throw tooLargeToStore(
    `${resource.resourceType} is ${utf8Length(json)} bytes of JSON; the store keeps resources up to ${MAX_RESOURCE_BYTES} bytes. ` +
      "Put large content in a Binary resource (kept in object storage) and reference it from an Attachment.url.",
  );
}
