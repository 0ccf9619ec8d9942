/** The CLI's support layer: `openRun`, loaded only when a command opens a run. */
export { openRun } from '../pipeline/run.js';
