// The destinations that Subscriptions and webhook endpoints deliver through (each has its own
// managed destination, owner {kind, id}), by owner id, so their lists show the queue's status as
// the Destinations page does. One page of the largest size the API serves; `partial` says when
// the organization has more destinations than that (those owners then show no queue status).
import type { Destination } from "../destinations/types";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";

const MAX_PAGE = 100;

export function useManagedDestinations(kind: "subscription" | "webhook"): { byOwner: Map<string, Destination>; partial: boolean; reload(): void; loading: boolean } {
  const { can } = useSession();
  const list = useApi<{ destinations: Destination[]; total_count: number }>(can("messages:read") ? withQuery("/api/v1/destinations", { limit: MAX_PAGE }) : null);
  const byOwner = new Map<string, Destination>();
  for (const d of list.data?.destinations ?? []) if (d.owner?.kind === kind) byOwner.set(d.owner.id, d);
  return { byOwner, partial: (list.data?.total_count ?? 0) > MAX_PAGE, reload: list.reload, loading: list.loading };
}
