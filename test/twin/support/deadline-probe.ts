/**
 * Run as its own process by test/twin/temporal-deadline.test.ts (a jest worker may carry promise
 * hooks an earlier test file turned on). Connects as the gateway does, sends a twin a status signal
 * through the gateway's twin client, and prints whether promise hooks were on after each: a promise
 * callback sees an execution id other than 0 only while they are.
 */
import { randomUUID } from 'node:crypto';
import { executionAsyncId } from 'node:async_hooks';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../../gateway/temporal/temporal-deadline';
import { createTwinClient } from '../../../gateway/temporal/twin-client';

const hooksOn = async (): Promise<boolean> => (await Promise.resolve().then(() => executionAsyncId())) !== 0;

async function main(): Promise<void> {
  const connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS });
  const twins = createTwinClient({ client: new Client({ connection }), taskQueue: `probe-${randomUUID()}`, heartbeatTimeoutS: 60 });
  const afterConnect = await hooksOn();
  await twins.status(randomUUID(), randomUUID(), 'offline', new Date().toISOString());
  const afterCall = await hooksOn();
  await connection.close();
  process.stdout.write(`${JSON.stringify({ afterConnect, afterCall })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
