// Every Durable Object belongs to one organization: it records the org when it is created
// and refuses callers of another one. Names already keep tenants apart
// (src/tenancy/object-names.ts); this keeps a stub built wrongly from reaching another org.

const OWNER_KEY = "owner_org";

export class ForeignOrganization extends Error {
  constructor() {
    super("This Durable Object belongs to another organization");
    this.name = "ForeignOrganization";
  }
}

/** Records `orgId` as the owner of a new object, or checks it against the recorded owner. */
export async function claimFor(storage: DurableObjectStorage, orgId: string): Promise<void> {
  const owner = await storage.get<string>(OWNER_KEY);
  if (owner === undefined) await storage.put(OWNER_KEY, orgId);
  else if (owner !== orgId) throw new ForeignOrganization();
}

/** Whether the object holds state of `orgId`: reads of anything else answer "not found". */
export async function ownedBy(storage: DurableObjectStorage, orgId: string): Promise<boolean> {
  return (await storage.get<string>(OWNER_KEY)) === orgId;
}
