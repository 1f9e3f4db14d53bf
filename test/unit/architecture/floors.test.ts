// The floors, drawn from the imports: src/main/ (the composition root) on top, which nothing
// imports; features and standards (plug-ins) below it, meeting each other through their public
// index.ts; the platform at the bottom, which knows none of them.
import { describe, expect, it } from "vitest";
import { importsOf, relative, sourceFiles, violations } from "./source-imports";

/** The area a src/-relative path belongs to: "main", "platform", "features/<name>" or "standards/<name>". */
function areaOf(path: string): string {
  const [top, name] = path.split("/");
  return top === "features" || top === "standards" ? `${top}/${name}` : (top ?? "");
}

describe("floors", () => {
  it("nothing outside src/main/ imports src/main/", () => {
    const up = sourceFiles()
      .filter((file) => !relative(file).startsWith("main/"))
      .flatMap((file) => importsOf(file).filter((imported) => imported.startsWith("main/")).map((imported) => `${relative(file)} → ${imported}`));
    expect(up).toEqual([]);
  });

  it("the platform imports no feature, no standard and nothing of src/main/", () => {
    expect(violations("platform", ["features/", "standards/", "main/"])).toEqual([]);
  });

  it("a feature or a standard imports a feature only through its index.ts", () => {
    const internals = sourceFiles()
      .filter((file) => relative(file).startsWith("features/") || relative(file).startsWith("standards/"))
      .flatMap((file) => {
        const own = areaOf(relative(file));
        return importsOf(file)
          .filter((imported) => imported.startsWith("features/") && areaOf(imported) !== own && imported !== areaOf(imported) && imported !== `${areaOf(imported)}/index`)
          .map((imported) => `${relative(file)} → ${imported}`);
      });
    expect(internals).toEqual([]);
  });

  // standards/plugin.ts is the plug-in contract every standard implements, not a standard.
  it("a standard imports another standard only through its index.ts", () => {
    const internals = sourceFiles()
      .filter((file) => relative(file).startsWith("standards/"))
      .flatMap((file) => {
        const own = areaOf(relative(file));
        return importsOf(file)
          .filter((imported) => imported.startsWith("standards/") && imported !== "standards/plugin" && areaOf(imported) !== own && imported !== areaOf(imported) && imported !== `${areaOf(imported)}/index`)
          .map((imported) => `${relative(file)} → ${imported}`);
      });
    expect(internals).toEqual([]);
  });
});
