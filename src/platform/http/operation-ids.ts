// Stable operationIds for the OpenAPI document, so generated clients get method names such as
// `listPipelines`, `getPipeline`, `deployPipeline` rather than path-shaped ones. A route may set
// its own `operationId`; every other one is derived from its method and path by the REST
// convention below, which is why a rename of a path is an API change (the snapshot test says so).
//
//   GET    /api/pipelines              listPipelines        (a plural last segment is a collection)
//   POST   /api/pipelines              createPipeline
//   GET    /api/pipelines/{id}         getPipeline
//   PUT    /api/pipelines/{id}         updatePipeline
//   DELETE /api/pipelines/{id}         deletePipeline
//   POST   /api/pipelines/{id}/deploy  deployPipeline       (a singular last segment is an action)
//   GET    /api/agents/{id}/versions   listAgentVersions    (parents name the owner)
//   GET    /api/organization           getOrganization      (a singular resource)

type Method = "get" | "post" | "put" | "patch" | "delete";
interface Operation {
  operationId?: string;
}
type Paths = Record<string, Partial<Record<string, Operation>>>;

const METHODS: readonly Method[] = ["get", "post", "put", "patch", "delete"];

/** Fills in every missing operationId; throws when two operations would share one. */
export function assignOperationIds(paths: Paths): void {
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId ??= deriveOperationId(method, path);
      const where = `${method.toUpperCase()} ${path}`;
      const other = seen.get(op.operationId);
      if (other) throw new Error(`operationId ${op.operationId} of ${where} is already ${other}'s: give one of them its own`);
      seen.set(op.operationId, where);
    }
  }
}

/** The REST-convention name of `method` on `path` (see the table above). */
export function deriveOperationId(method: Method, path: string): string {
  const segments = path
    .split("/")
    .filter((s) => s && s !== "api" && !/^v\d+$/.test(s));
  // Each static segment with what follows it: a parameter after it makes it one item of a collection.
  const parts = segments.flatMap((s, i) => (isParam(s) ? [] : [{ name: s, item: isParam(segments[i + 1] ?? "") }]));
  const last = parts.at(-1);
  if (!last) return method;
  const owners = parts.slice(0, -1).map((p) => (p.item ? singular(p.name) : p.name));
  if (last.item) return camel([ITEM_VERB[method], ...owners, singular(last.name)]);
  if (isPlural(last.name)) return camel([method === "get" ? "list" : COLLECTION_VERB[method], ...owners, method === "get" ? last.name : singular(last.name)]);
  // A singular last segment: the resource itself on GET/PUT, otherwise an action on its owner.
  if (method === "get" || method === "put" || method === "patch") return camel([ITEM_VERB[method], ...owners, last.name]);
  return camel([last.name, ...owners]);
}

const ITEM_VERB: Record<Method, string> = { get: "get", post: "create", put: "update", patch: "patch", delete: "delete" };
const COLLECTION_VERB: Record<Method, string> = { get: "list", post: "create", put: "replace", patch: "patch", delete: "delete" };

const isParam = (segment: string) => segment.startsWith("{") || segment.startsWith(":");
const isPlural = (word: string) => /[^s]s$/.test(word.split("-").at(-1) ?? word);
const singular = (word: string) => (isPlural(word) ? word.replace(/ies$/, "y").replace(/s$/, "") : word);

function camel(words: string[]): string {
  const flat = words.flatMap((w) => w.split(/[-_.$]/)).filter(Boolean);
  return flat.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1))).join("");
}
