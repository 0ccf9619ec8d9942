/**
 * Child process of the bench for the throughput figures (a) and (b): runs `measureThroughput` — subject and baseline
 * alternating, in this one process — and prints its result as one JSON line on stdout (progress on stderr).
 *
 *   node dist/bench/throughput-child.js        plan in BENCH_THROUGHPUT (JSON: ThroughputPlan without `log`)
 *
 * Why a child: the process measured should hold what an exporting process holds. The CLI and a program that has
 * imported the library hold the library; the bench's own process also holds the sandbox server, the data
 * generator, the report and the comparison libraries, which put its V8 heap right at the 8 MB above which V8 keeps
 * incremental marking running (docs/PERFORMANCE.md, "Where the time and the memory go").
 */

import '../src/index.js';
import { measureThroughput, type ThroughputPlan } from './measure-files.js';

async function main(): Promise<void> {
  const plan = JSON.parse(process.env['BENCH_THROUGHPUT'] ?? 'null') as Omit<ThroughputPlan, 'log'> | null;
  if (plan === null) throw new Error('BENCH_THROUGHPUT is not set');
  const result = await measureThroughput({ ...plan, log: (line) => void process.stderr.write(line + '\n') });
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(
    `bench throughput child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
