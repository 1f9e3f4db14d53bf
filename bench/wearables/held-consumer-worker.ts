// The wearables bench's Worker: src/main/entry.ts unchanged, with a switch that holds the device
// events' queue consumer (never deployed). Under wrangler dev the consumer runs on the same
// workerd thread as the requests, which Cloudflare never does (a consumer is its own
// invocation, elsewhere), so the acknowledgement phase holds it and times the acks alone; the
// consumer's throughput is measured in a phase of its own once released.
// `POST /api/__bench/consumer?hold=1|0` holds or releases it (a held batch waits, polling the switch; the broker sends no other meanwhile).
import worker from "../../src/main/entry";
import type { Env } from "../../src/platform/env";

export * from "../../src/main/entry";

let held = false;
/** Batches the consumer has finished, and their messages (the bench's drain check). */
const done = { batches: 0, messages: 0 };

export default {
  ...worker,
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== "/api/__bench/consumer") return worker.fetch(request, env, ctx);
    if (request.method === "POST") held = url.searchParams.get("hold") === "1";
    return Response.json({ held, ...done });
  },
  async queue(batch, env) {
    // Polled: a promise settled by another request's handler cannot wake this invocation in workerd.
    while (held) await new Promise((r) => setTimeout(r, 50));
    await worker.queue(batch, env);
    done.batches++;
    done.messages += batch.messages.length;
  },
} satisfies ExportedHandler<Env>;
