/**
 * `replay-export sandbox --options <list>`: every sandbox option the command line can give (all of `SandboxOptions`
 * but the clock, the fault switches, which have `--faults`, and the port and replicas, which have flags of their own),
 * as `key=value` pairs separated by commas, or as a JSON object. Nested options take dotted keys
 * (`limits.dashboardConcurrentCost=300`, `listGrowth.perPage=2`, `hiddenTail.<replay id>=1`); lists take `|`
 * (`held=a/1|b/2`). Values are checked as the library checks them (`resolveOptions`).
 */
import { flagPairs } from './flag-pairs.js';
import { resolveOptions, SandboxConfigError, type SandboxOptions } from './options.js';

/** The options `--options` sets, each once. */
const KEYS = [
  'host',
  'apiKey',
  'secretKey',
  'managementKey',
  'samplesDir',
  'extraReplays',
  'urlTtlMs',
  'held',
  'listGrowth',
  'sortOrder',
  'hiddenTail',
  'apiConcurrency',
  'limits',
  'timeScale',
  'ignoreTimeFilters',
] as const;
type Key = (typeof KEYS)[number];
const NESTED: ReadonlySet<string> = new Set(['limits', 'listGrowth', 'hiddenTail']);
/** Options whose value stays text even when it reads as a number. */
const TEXT: ReadonlySet<string> = new Set(['host', 'apiKey', 'secretKey', 'managementKey', 'samplesDir', 'sortOrder']);

function textValue(key: string, raw: string): unknown {
  if (key === 'held') return raw.split('|').filter((id) => id !== '');
  if (TEXT.has(key)) return raw;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return raw;
}

function pairs(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const refuse = (item: string) => new SandboxConfigError(`--options: ${JSON.stringify(item)} is not key=value`);
  for (const [name, raw] of flagPairs(text, refuse)) {
    const dot = name.indexOf('.');
    const key = dot < 0 ? name : name.slice(0, dot);
    const value = textValue(key, raw);
    if (dot < 0) out[key] = value;
    else if (NESTED.has(key)) out[key] = { ...(out[key] as object | undefined), [name.slice(dot + 1)]: value };
    else throw new SandboxConfigError(`--options: ${key} takes no dotted key (${name})`);
  }
  return out;
}

/** Reads `--options`; throws SandboxConfigError naming an unknown option or a bad value. */
export function parseOptionsFlag(text: string): Partial<SandboxOptions> {
  const value = text.trim();
  let given: Record<string, unknown>;
  if (value.startsWith('{')) {
    try {
      given = JSON.parse(value) as Record<string, unknown>;
    } catch {
      throw new SandboxConfigError('--options: not a valid JSON object');
    }
    if (typeof given !== 'object' || given === null || Array.isArray(given))
      throw new SandboxConfigError('--options: not a JSON object');
  } else given = pairs(value);
  for (const k of Object.keys(given))
    if (!KEYS.includes(k as Key))
      throw new SandboxConfigError(`--options: ${k} is not a sandbox option (known: ${KEYS.join(', ')})`);
  resolveOptions(given as SandboxOptions); // checks every value now, before the sandbox starts
  return given as Partial<SandboxOptions>;
}
