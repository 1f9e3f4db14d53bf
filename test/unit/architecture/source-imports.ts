// The Worker's source files and what each imports (type imports and `import("…")` types too), as
// paths relative to src/ without extension, for the architecture tests.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export const SRC = path.resolve(import.meta.dirname, "../../../src");

/** Every .ts file under `dir` (declaration files included), as absolute paths. */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

const IMPORT = /\bfrom\s+"(\.[^"]+)"|\bimport\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)|declare module\s+"(\.[^"]+)"/g;

/** The relative modules a file imports, as paths relative to src/ (e.g. "features/fhir/index", "platform/env"). */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => path.relative(SRC, path.resolve(path.dirname(file), (m[1] ?? m[2] ?? m[3] ?? m[4]) as string)).replace(/\.(js|ts)$/, ""));
}

/** The file's path relative to src/. */
export const relative = (file: string): string => path.relative(SRC, file);

/** "file → import" for each import of a file under `folder` (or the file itself) that starts with a forbidden prefix. */
export function violations(folder: string, forbidden: string[]): string[] {
  const target = path.join(SRC, folder);
  const list = statSync(target).isDirectory() ? sourceFiles(target) : [target];
  return list.flatMap((file) =>
    importsOf(file)
      .filter((imported) => forbidden.some((prefix) => imported.startsWith(prefix)))
      .map((imported) => `${relative(file)} → ${imported}`),
  );
}
