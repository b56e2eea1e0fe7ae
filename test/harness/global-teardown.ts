import { rm } from 'node:fs/promises';
import { forgetRun } from './leftovers';

/** Stops the servers the global setup started and removes their directory. */
export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__ddsTestServers;
  if (!running) return;
  globalThis.__ddsTestServers = undefined;
  await Promise.all(running.stops.map((stop) => stop()));
  await rm(running.dir, { recursive: true, force: true });
  await forgetRun();
}
