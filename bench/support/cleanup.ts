/** What a bench started, stopped newest first exactly once: at the end, on an error, or on SIGINT/SIGTERM. */
export interface Cleanup {
  add(name: string, stop: () => Promise<void>): void;
  run(): Promise<void>;
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export function createCleanup(): Cleanup {
  const stops: { name: string; stop: () => Promise<void> }[] = [];
  let running: Promise<void> | null = null;

  const run = (): Promise<void> =>
    (running ??= (async () => {
      for (const { name, stop } of stops.reverse()) {
        try {
          await stop();
        } catch (err) {
          process.stderr.write(`cleanup: stopping ${name} failed: ${errorText(err)}\n`);
        }
      }
    })());

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    // A second signal exits at once; 'exit' hooks of the dev servers still kill their process groups.
    if (signals > 1) process.exit(130);
    process.stderr.write(`\n${signal}: stopping everything this bench started\n`);
    void run().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  return { add: (name, stop) => void stops.push({ name, stop }), run };
}

/** Runs a bench body with a fresh Cleanup; whatever happens, everything it started is stopped. */
export async function runBench(name: string, body: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = createCleanup();
  let failed = false;
  try {
    await body(cleanup);
  } catch (err) {
    failed = true;
    process.stderr.write(`${name} bench failed: ${errorText(err)}\n`);
  } finally {
    await cleanup.run();
  }
  // Client libraries can keep timers alive after close; the bench is over, so leave now.
  process.exit(failed ? 1 : 0);
}
