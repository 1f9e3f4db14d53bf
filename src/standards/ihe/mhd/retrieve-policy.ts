// ITI-68 Retrieve Document: "410 Gone for deprecated or unavailable documents" when policy
// requires (MHD ITI-68 §2:3.68.4.2.2). An organization that sets `mhd_superseded_gone`
// (features/ihe) gets 410 with an OperationOutcome for a document every DocumentReference of
// which is superseded (replaced through relatesTo); a document some current DocumentReference
// still points at, or that none points at, is served as before. Off by default.
import { readIheSettings } from "../../../features/ihe";
import type { RetrieveCheck } from "../../../features/fhir";
import { gone } from "../../../platform/errors";

/** The forms a DocumentReference may name this Binary by: absolute under the store's base, the base's path, or relative. */
function locations(baseUrl: string, orgId: string, id: string): string {
  const forms = new Set([`${baseUrl}/Binary/${id}`, `/fhir/r4/${orgId}/Binary/${id}`, `Binary/${id}`]);
  return [...forms].map((f) => f.replaceAll(",", "\\,")).join(",");
}

export const supersededGone: RetrieveCheck = {
  async check(binary, store) {
    if (!binary.id || !(await readIheSettings(store.data)).supersededGone) return undefined;
    const location = encodeURIComponent(locations(store.baseUrl, store.data.orgId, binary.id));
    const byStatus = async (status: string) => (await store.matches("DocumentReference", `location=${location}&status=${status}`, 1)).length > 0;
    if ((await byStatus("current")) || !(await byStatus("superseded"))) return undefined;
    return gone(`Binary/${binary.id} is the document of a superseded DocumentReference; this organization's policy (mhd_superseded_gone) no longer serves it`);
  },
};

export const MHD_RETRIEVE_CHECKS: readonly RetrieveCheck[] = [supersededGone];
