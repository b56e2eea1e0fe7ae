/**
 * `npm run bench`: runs the benches that are built, one after the other, each as its own
 * `node dist/bench/<name>.js` process so they stay independent, then lists how each ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The benches, in the order they run; a bench whose file is not there is left out. */
const BENCHES = ['ingest', 'data-read', 'twins', 'fleet-rules', 'fleet', 'simple-update', 'dashboard', 'cluster'];

const benchFile = (name: string): string => join(__dirname, `${name}.js`);

let current: ChildProcess | null = null;
let stopping = false;

function runOne(name: string): Promise<string> {
  return new Promise((resolve) => {
    // Its own process group: a terminal's Ctrl-C reaches only this runner, which passes it on once.
    const child = spawn(process.execPath, [benchFile(name)], { stdio: 'inherit', detached: true });
    current = child;
    child.once('error', (err) => resolve(`could not start: ${err.message}`));
    child.once('exit', (code, signal) => {
      current = null;
      resolve(signal ? `killed by ${signal}` : code === 0 ? 'ok' : `exit code ${code}`);
    });
  });
}

async function main(): Promise<void> {
  // A bench stops what it started on SIGINT/SIGTERM; pass the signal on and start no further bench.
  const forward = (signal: NodeJS.Signals): void => {
    stopping = true;
    current?.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);

  const results: [string, string, number][] = [];
  for (const name of BENCHES) {
    if (stopping) break;
    if (!existsSync(benchFile(name))) {
      process.stdout.write(`\n=== bench: ${name}: not built (no bench/${name}.ts), skipped ===\n`);
      continue;
    }
    process.stdout.write(`\n=== bench: ${name} (${new Date().toISOString()}) ===\n`);
    const started = Date.now();
    results.push([name, await runOne(name), (Date.now() - started) / 1000]);
  }
  process.stdout.write('\n=== benches ===\n');
  for (const [name, outcome, seconds] of results) process.stdout.write(`  ${name.padEnd(16)} ${outcome} (${seconds.toFixed(0)} s)\n`);
  process.exitCode = results.every(([, outcome]) => outcome === 'ok') && !stopping ? 0 : 1;
}

void main();
