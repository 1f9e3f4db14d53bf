// Subscriptions the service cannot serve are refused on write with a 422 OperationOutcome (a
// criteria it cannot evaluate, an unknown topic, an unserved channel or payload), never stored
// to fail later: for single writes and batch entries (a write check), and for a transaction's
// entries (a bundle check).
import { unprocessable } from "../../platform/errors";
import type { Bundle, BundleCheck, Resource, WriteCheck } from "../fhir";
import { parseSubscription } from "./subscription";

function refusal(resource: Resource, at = "Subscription") {
  const parsed = parseSubscription(resource);
  if (parsed.ok) return undefined;
  return unprocessable(`${at} cannot be served: ${parsed.issues.join("; ")}`, parsed.issues.map((message) => ({ path: at, message })));
}

export const subscriptionWriteCheck: WriteCheck = {
  types: ["Subscription"],
  check: async (resource) => refusal(resource),
};

export const subscriptionBundleCheck: BundleCheck = {
  applies: (bundle: Bundle) => bundle.type === "transaction" && (bundle.entry ?? []).some((e) => e?.resource?.resourceType === "Subscription"),
  check: async (bundle: Bundle) => {
    for (const [i, entry] of (bundle.entry ?? []).entries()) {
      if (entry?.resource?.resourceType !== "Subscription") continue;
      const refused = refusal(entry.resource, `Bundle.entry[${i}].resource`);
      if (refused) throw refused;
    }
    return undefined;
  },
};
