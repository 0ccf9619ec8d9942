/** The CLI's support layer: the `sandbox` command's runner and its `--faults` flag. */
export { parseFaultsFlag, runSandboxCommand, SANDBOX_DEFAULTS } from '../sandbox/index.js';
