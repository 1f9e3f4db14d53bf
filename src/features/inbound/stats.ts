// The channels dashboard's figures (Mirth's received, filtered, queued, sent, errored) per inbound
// route (protocol and sender) over the last hours, from the store's hourly counts.
import type { HourlyCount } from "./store";
import type { MessageStatus } from "./tables";

export interface Counts {
  received: number;
  /** No deployed pipeline took it (unrouted). */
  filtered: number;
  /** Waiting in its sender's line. */
  queued: number;
  /** Every matching pipeline ran it (processed). */
  sent: number;
  /** Failed in a pipeline, or rejected as unreadable. */
  errored: number;
}

export interface RouteStats extends Counts {
  protocol: string;
  /** null: messages too broken to name their sender (rejected). */
  sender: string | null;
  /** One entry per hour, oldest first. */
  hours: ({ start: string } & Counts)[];
}

const FIGURE: Record<MessageStatus, keyof Counts | undefined> = { received: "queued", unrouted: "filtered", processed: "sent", failed: "errored", rejected: "errored" };

const none = (): Counts => ({ received: 0, filtered: 0, queued: 0, sent: 0, errored: 0 });

function add(to: Counts, status: MessageStatus, n: number): void {
  to.received += n;
  const figure = FIGURE[status];
  if (figure) to[figure] += n;
}

/** Routes with the most messages first. */
export function routeStats(counts: readonly HourlyCount[], starts: readonly string[]): RouteStats[] {
  const byRoute = new Map<string, RouteStats>();
  const slot = new Map(starts.map((s, i) => [s, i]));
  for (const c of counts) {
    const key = JSON.stringify([c.protocol, c.sender]);
    let route = byRoute.get(key);
    if (!route) {
      route = { protocol: c.protocol, sender: c.sender, ...none(), hours: starts.map((start) => ({ start, ...none() })) };
      byRoute.set(key, route);
    }
    add(route, c.status, c.count);
    const i = slot.get(c.hour);
    if (i !== undefined) add(route.hours[i]!, c.status, c.count);
  }
  return [...byRoute.values()].sort((a, b) => b.received - a.received);
}
