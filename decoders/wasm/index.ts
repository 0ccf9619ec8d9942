// Entry of the WebAssembly module built into decoders/wasm-module.ts (scripts/build-wasm.mjs): the JSON array
// scanner and the version 2 element decoder.
export { scan } from './scanner';
export { v2Decode } from './v2';
