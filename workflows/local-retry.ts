/**
 * A local activity whose next retry is due later than this waits for it on a server timer, with
 * its workflow task closed: retried inside the task, a step meeting a long Redis outage would hold
 * the task, and the worker's shutdown, until Redis is back (docs/architecture.md, "The twin's
 * steps run in its workflow task").
 */
export const LOCAL_RETRY_THRESHOLD = '5 seconds';
