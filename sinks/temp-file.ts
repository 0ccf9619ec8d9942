/** The temporary files of the local sink and `decode --out` live in the target module (sinks/target/temp-file.ts). */
export { TempFile } from './target/temp-file.js';
