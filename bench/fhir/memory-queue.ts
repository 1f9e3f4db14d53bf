// The audit queue for the in-process benchmark: holds what the store sends, as Cloudflare's
// queue would between a read and its delivery, and hands it to the real consumer in batches
// of the configured size (wrangler.toml: max_batch_size 100).
import { type AuditMessage, storeAudits } from "../../src/features/fhir/audit-queue";
import type { OrgData } from "../../src/platform/org-data";

export class MemoryQueue {
  readonly held: AuditMessage[] = [];

  async send(body: unknown): Promise<void> {
    this.held.push(body as AuditMessage);
  }

  async sendBatch(messages: Iterable<{ body: unknown }>): Promise<void> {
    for (const m of messages) this.held.push(m.body as AuditMessage);
  }

  /** Delivers everything held to the consumer's store, `batchSize` events per D1 batch; returns the batches. */
  async deliver(dataFor: (orgId: string) => OrgData, batchSize = 100): Promise<number> {
    let batches = 0;
    while (this.held.length) {
      const batch = this.held.splice(0, batchSize);
      const orgs = new Set(batch.map((m) => m.orgId));
      for (const org of orgs) {
        await storeAudits(
          dataFor(org),
          batch.filter((m) => m.orgId === org).map((m) => m.event),
        );
        batches++;
      }
    }
    return batches;
  }
}
