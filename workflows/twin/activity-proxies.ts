/**
 * How the twin calls its activities: the retry policy of each kind of step, and, by the run's
 * version (version.ts), whether its steps run as local activities or as activities of the task queue.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TwinActivities } from '../../activities';
import { LOCAL_RETRY_THRESHOLD } from '../local-retry';
import type { TwinVersion } from './version';

/** I/O that must happen eventually (mirror, notifications, check-backs): retried until it does. */
const durableOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

/** I/O a caller waits for (Updates, command publishes): a few quick tries, then an answer. */
const answeringOptions = {
  startToCloseTimeout: '5 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 3 },
} as const;

/** The twin's steps: each a Redis read or write of a few milliseconds. */
export interface TwinSteps {
  durable: TwinActivities;
  answering: TwinActivities;
}

const queuedSteps: TwinSteps = {
  durable: proxyActivities<TwinActivities>(durableOptions),
  answering: proxyActivities<TwinActivities>(answeringOptions),
};

const localSteps: TwinSteps = {
  durable: proxyLocalActivities<TwinActivities>({ ...durableOptions, localRetryThreshold: LOCAL_RETRY_THRESHOLD }),
  answering: proxyLocalActivities<TwinActivities>({ ...answeringOptions, localRetryThreshold: LOCAL_RETRY_THRESHOLD }),
};

/** Runs with LOCAL_STEPS_PATCH run their steps inside the workflow task that decided them; runs before it, on the task queue. */
export const stepsOf = (version: TwinVersion): TwinSteps => (version.localSteps ? localSteps : queuedSteps);

/**
 * The liveness watch (awaitSilence): retried for as long as the device is heard from, each retry
 * delayed by the activity itself until the next heartbeat deadline, so it never gives up; a Redis
 * that is down is retried with this policy's backoff. Always an activity of the task queue.
 */
export const watching = proxyActivities<TwinActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});
