import { Client, Connection } from '@temporalio/client';
import { createTwinClient, type TwinClient } from '../../gateway/temporal/twin-client';
import type { Stack } from './stack';

/** A twin client of the test's own on the stack's Temporal, to read twins' state as the gateway would. */
export async function connectTwinClient(stack: Stack): Promise<{ twins: TwinClient; close: () => Promise<void> }> {
  const connection = await Connection.connect({ address: stack.config.TEMPORAL_ADDRESS as string });
  const twins = createTwinClient({
    client: new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE }),
    taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
    heartbeatTimeoutS: stack.config.DEVICE_HEARTBEAT_TIMEOUT_S,
  });
  return { twins, close: () => connection.close() };
}
