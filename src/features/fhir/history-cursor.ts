// History paging cursors: the position (last updated, type, id, version) of the last entry of a
// page, in a paging token (paging-token.ts), so only this organization's well-formed positions
// reach the history query.
import { z } from "zod";
import { decodePagingToken, encodePagingToken, tokenFields } from "./paging-token";
import type { StoredVersion } from "./storage/resource-store";

const HISTORY_CURSOR = {
  lastUpdated: tokenFields.instant,
  type: tokenFields.resourceType,
  id: tokenFields.id,
  versionId: z.number().int().positive(),
};

export type HistoryPosition = z.infer<z.ZodObject<typeof HISTORY_CURSOR>>;

export const encodeHistoryCursor = (org: string, v: StoredVersion): string =>
  encodePagingToken(org, { lastUpdated: v.lastUpdated, type: v.resourceType, id: v.id, versionId: v.versionId } satisfies HistoryPosition);

export const decodeHistoryCursor = (token: string | null, org: string): HistoryPosition | undefined =>
  token ? decodePagingToken(token, org, HISTORY_CURSOR) : undefined;
