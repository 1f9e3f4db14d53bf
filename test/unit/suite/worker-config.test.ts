// The Worker suite's runtime takes the audit queue's consumer settings from test/projects.ts whole
// (Miniflare does not merge them with wrangler.toml's), so they must be wrangler.toml's but for the
// shorter batch timeout: a batch size or retry count of the test runtime's own would change how
// the suite's AuditEvents reach storage (a 5-message batch, Miniflare's default, made a backlog
// take twenty times as many deliveries).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { AUDIT_CONSUMER } from "../../projects";

describe("the Worker suite's audit queue consumer", () => {
  it("is wrangler.toml's but for a shorter batch timeout", () => {
    const config = unstable_readConfig({ config: path.resolve(import.meta.dirname, "../../../wrangler.toml") });
    const deployed = config.queues.consumers?.find((c: { queue: string }) => c.queue === "cdis-audit");
    expect(deployed).toBeDefined();
    const { maxBatchTimeout, ...rest } = AUDIT_CONSUMER;
    expect(rest).toEqual({ maxBatchSize: deployed?.max_batch_size, maxRetries: deployed?.max_retries, deadLetterQueue: deployed?.dead_letter_queue });
    expect(maxBatchTimeout).toBeLessThan(deployed?.max_batch_timeout ?? 0);
  });
});
