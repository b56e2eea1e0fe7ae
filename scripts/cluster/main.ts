/**
 * `npm run cluster -- <scenario…|all|up> [--devices N] [--rate R] [--watchers W]` (docs/cluster.md):
 * builds the cluster as separate hosts on this machine, runs the scenarios under a steady load,
 * prints one table per scenario, and removes everything it made (also what a killed earlier run
 * left). Exit code 1 when a check failed, 2 when the harness cannot run here.
 */
import { Cluster } from './cluster';
import { DEFAULT_LOAD, type LoadOptions } from './load/load';
import { cannotRunHere } from './net';
import { runScenario, type ScenarioResult } from './run-scenario';
import type { Scenario } from './scenario';
import { ALL, SCENARIOS, scenarioNamed } from './scenarios';

const say = (line: string): void => void process.stdout.write(`cluster: ${line}\n`);

const USAGE = `usage: npm run cluster -- <scenario…|all|up> [--devices N] [--rate R] [--watchers W] [--echo-ms E]
  scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}
  all:       ${ALL.join(', ')}
  up:        start the cluster and keep it until Ctrl-C
  --devices  steady devices (default ${DEFAULT_LOAD.devices}; a quiet and a leaver come on top)
  --rate     V1 values per second per device (default ${DEFAULT_LOAD.rate})
  --watchers Socket.IO clients (default ${DEFAULT_LOAD.watchers})
  --echo-ms  how long a device takes to echo a command (default ${DEFAULT_LOAD.echoMs}; 0: at once)`;

function parse(argv: string[]): { names: string[]; options: LoadOptions } | null {
  const options = { ...DEFAULT_LOAD };
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const flag = /^--(devices|rate|watchers|echo-ms)$/.exec(arg)?.[1]?.replace('echo-ms', 'echoMs') as keyof LoadOptions | undefined;
    if (flag) {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value < (flag === 'echoMs' ? 0 : 1)) return null;
      options[flag] = value;
    } else if (arg.startsWith('-')) return null;
    else names.push(arg);
  }
  return names.length ? { names, options } : null;
}

async function main(argv: string[]): Promise<number> {
  const parsed = parse(argv);
  if (!parsed) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const up = parsed.names.includes('up');
  const scenarios: Scenario[] = up ? [] : parsed.names.flatMap((n) => (n === 'all' ? ALL.map(scenarioNamed) : [scenarioNamed(n)]));
  const blocked = await cannotRunHere();
  if (blocked) {
    process.stderr.write(`cluster: ${blocked}\n`);
    return 2;
  }
  const cluster = await Cluster.start(say);
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => (stopping ??= cluster.stop());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      say(`${signal}: removing the cluster`);
      void stop().finally(() => process.exit(130));
    });
  }
  try {
    if (up) {
      say(`up; balancer ${cluster.balancerUrl}, broker ${cluster.brokerUrl}, logs in ${cluster.dir}/logs; Ctrl-C removes it`);
      await new Promise(() => undefined);
    }
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      const result = await runScenario(cluster, scenario, say, parsed.options);
      process.stdout.write(`${result.table}\n`);
      results.push(result);
    }
    process.stdout.write(
      `\n${results.map((r) => `${r.name}: ${r.failed.length ? `FAILED (${r.failed.map((f) => f.check).join(', ')})` : 'passed'} in ${r.seconds.toFixed(0)} s`).join('\n')}\n`,
    );
    say(`logs of this run: ${cluster.dir}/logs (kept until the next run)`);
    return results.some((r) => r.failed.length) ? 1 : 0;
  } finally {
    await stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cluster: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
