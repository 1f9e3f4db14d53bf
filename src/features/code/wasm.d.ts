// The QuickJS WebAssembly file, imported as a compiled module (wrangler's and the Worker test
// pool's default rule for .wasm): Workers cannot compile WebAssembly from bytes at run time.
declare module "@jitl/quickjs-ng-wasmfile-release-sync/wasm" {
  const module: WebAssembly.Module;
  export default module;
}
