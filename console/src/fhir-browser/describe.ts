// A one-line description of any resource for the results table: its name, code or title, and
// status, where the resource has them (the JSON on its page has the rest).
interface Coded {
  text?: string;
  coding?: { display?: string; code?: string }[];
}
interface Named {
  text?: string;
  family?: string;
  given?: string[];
}
type AnyResource = Record<string, unknown> & { name?: unknown; code?: Coded; title?: string; status?: string; description?: string };

const codedText = (c: Coded | undefined) => c?.text ?? c?.coding?.[0]?.display ?? c?.coding?.[0]?.code;

function nameText(name: unknown): string | undefined {
  if (typeof name === "string") return name;
  if (!Array.isArray(name)) return undefined;
  const n = name[0] as Named | undefined;
  return n?.text ?? ([...(n?.given ?? []), n?.family].filter(Boolean).join(" ") || undefined);
}

export function describeResource(r: AnyResource): string {
  const what = nameText(r.name) ?? codedText(r.code) ?? r.title ?? r.description;
  return [what, r.status].filter(Boolean).join(" · ") || "—";
}
