// The one naming scheme of Durable Objects. Every object belongs to one organization and
// its name is the JSON encoding of [org, ...parts]: no two tuples share a name, unlike a
// joined string where org "a" + session "x:y" and org "a:x" + session "y" collide.
// (Nothing was deployed under the earlier `org:id` names, so no state needed moving.)

export function objectName(orgId: string, ...parts: string[]): string {
  return JSON.stringify([orgId, ...parts]);
}

/** The stub of the object `orgId` owns under `parts` in `ns`. */
export function orgObject<T extends Rpc.DurableObjectBranded | undefined>(
  ns: DurableObjectNamespace<T>,
  orgId: string,
  ...parts: string[]
): DurableObjectStub<T> {
  return ns.get(ns.idFromName(objectName(orgId, ...parts)));
}
