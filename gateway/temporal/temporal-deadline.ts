import { Connection, type ConnectionLike, type ConnectionOptions } from '@temporalio/client';

/**
 * The gateway's Temporal calls carry their deadline (`Connection.withDeadline`) without leaving
 * Node 20's async-context tracking on for the rest of the process. The client keeps a call's
 * deadline in an AsyncLocalStorage, whose `run` installs promise hooks that stay on and tax every
 * promise the node makes from then on (3–4 % of a gateway's CPU per simple `/update`,
 * docs/benchmarks.md). The storage is switched off whenever no call of the connection's is in
 * flight, so the hooks are on only while the node talks to Temporal. Every deadline the gateway
 * gives Temporal goes through here, so none is cut short by another call's end.
 */

/** Calls under a deadline in flight on each connection. */
const inFlight = new WeakMap<ConnectionLike, number>();

function switchOffWhenIdle(connection: ConnectionLike): void {
  if (!inFlight.get(connection) && connection instanceof Connection) connection.callContextStorage.disable();
}

/** Connects (the connection's first call, under its own deadline), then switches the tracking off. */
export async function connectTemporal(options: ConnectionOptions): Promise<Connection> {
  const connection = await Connection.connect(options);
  switchOffWhenIdle(connection);
  return connection;
}

/** `call` under a deadline `ms` from now; the tracking is switched off again once no call is in flight. */
export async function withTemporalDeadline<T>(connection: ConnectionLike, ms: number, call: () => Promise<T>): Promise<T> {
  inFlight.set(connection, (inFlight.get(connection) ?? 0) + 1);
  try {
    return await connection.withDeadline(Date.now() + ms, call);
  } finally {
    inFlight.set(connection, (inFlight.get(connection) ?? 1) - 1);
    switchOffWhenIdle(connection);
  }
}
