// What an implementation guide's actor adds to the CapabilityStatement beyond the store's own
// interactions: the guide's CapabilityStatement the server instantiates and the profiles each
// resource type supports (as IHE's actor CapabilityStatements declare them). Standards declare
// their actors; the composition root lists them (src/main/plugins.ts).
export interface GuideActor {
  /** e.g. "IHE MHD Document Recipient". */
  name: string;
  /** Canonical URL of the guide's CapabilityStatement for this actor (and its options). */
  instantiates: readonly string[];
  /** Profiles the actor accepts or serves, per resource type. */
  supportedProfile?: Readonly<Record<string, readonly string[]>>;
  /** The transactions the actor serves, for the rest documentation (e.g. "ITI-65"). */
  transactions: readonly string[];
  /** Extensions the actor adds to a resource type's CapabilityStatement entry (e.g. the Backport IG's topic canonicals on Subscription). */
  resourceExtensions?: Readonly<Record<string, readonly Record<string, unknown>[]>>;
}

/** The supported profiles the actors declare for `type`, each once. */
export function supportedProfilesOf(actors: readonly GuideActor[], type: string): string[] {
  return [...new Set(actors.flatMap((a) => a.supportedProfile?.[type] ?? []))];
}

/** One line per actor, for CapabilityStatement.rest.documentation. */
export function actorDocumentation(actors: readonly GuideActor[]): string {
  return actors.map((a) => `${a.name} (${a.transactions.join(", ")})`).join("; ");
}

/** The extensions the actors add to `type`'s entry. */
export function resourceExtensionsOf(actors: readonly GuideActor[], type: string): Record<string, unknown>[] {
  return actors.flatMap((a) => [...(a.resourceExtensions?.[type] ?? [])]);
}
