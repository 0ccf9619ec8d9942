/** The CLI's support layer: the `sandbox` command's runner and its `--faults` flag. */
export { runSandboxCommand } from '../sandbox/cli.js';
export { parseFaultsFlag } from '../sandbox/faults.js';
export { parseOptionsFlag } from '../sandbox/options-flag.js';
export { SANDBOX_DEFAULTS } from '../sandbox/options.js';
