// Runs the benchmarks of issue 7 in sequence — ingest (1), fan-out (2), dispatch (3), ingest while dispatching (4), memory (5)
// — and prints one summary: every ratio or figure next to its target, PASS or FAIL. A benchmark
// that throws is reported as FAIL and the others still run. Results go to bench/results/*.json,
// the summary to bench/results/summary.json.
// Usage: npx tsx bench/run-all.ts [seconds] [--only=ingest,fanout,dispatch,memory] [--strict]
//   seconds (default 10) is each benchmark's load time (dispatch: 2,000 deliveries per second);
//   --strict exits with status 1 when a target is missed.
import { runDispatch } from './dispatch.js';
import { runFanout } from './fanout.js';
import { runIngest } from './ingest.js';
import { runIngestDispatch } from './ingest-dispatch.js';
import { hubCliArgs, printChecks, secondsArg, writeResult, type Check } from './lib.js';
import { runMemory } from './memory.js';

const args = process.argv.slice(2);
const seconds = secondsArg(args.find((a) => !a.startsWith('--')));
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');

const benchmarks: Array<[string, (s: number) => Promise<Check[]>]> = [
  ['ingest', runIngest],
  ['fanout', runFanout],
  ['dispatch', runDispatch],
  ['ingest-dispatch', runIngestDispatch],
  ['memory', runMemory],
];

const started = Date.now();
hubCliArgs(); // compile the hub once, up front, if dist/ is stale
const checks: Check[] = [];
for (const [name, run] of benchmarks) {
  if (only && !only.includes(name)) continue;
  try {
    checks.push(...(await run(seconds)));
  } catch (err) {
    console.error(`\n${name} failed:`, err);
    checks.push({ benchmark: name, metric: 'ran to the end', value: `error: ${(err as Error).message.split('\n')[0]}`, target: 'no error', pass: false });
  }
}

console.log(`\n== summary (${seconds} s per benchmark, ${Math.round((Date.now() - started) / 1000)} s in all) ==`);
printChecks(checks);
const failed = checks.filter((c) => c.pass === false).length;
console.log(`\n${failed ? `${failed} target(s) missed` : 'every target met'}; written to ${writeResult('summary', { seconds, checks })}`);
if (args.includes('--strict') && failed) process.exitCode = 1;
