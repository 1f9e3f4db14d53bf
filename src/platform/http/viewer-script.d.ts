// The API reference viewer's browser script, imported as text (wrangler.toml [[rules]]).
declare module "*/api-reference/dist/browser/standalone.js" {
  const script: string;
  export default script;
}
