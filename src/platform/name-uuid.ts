// Name-based UUIDs (RFC 9562 version 5) from the `uuid` package: the same name gives the same id,
// so a message converted again (a replay, a reprocess) yields the same resources, not new ones.
import { v5 } from "uuid";

/** The RFC 9562 URL namespace. */
export const URL_NAMESPACE: string = v5.URL;

/** RFC 9562 UUIDv5 of `name` in `namespace` (a UUID string). */
export const uuidV5 = (name: string, namespace: string): string => v5(name, namespace);
