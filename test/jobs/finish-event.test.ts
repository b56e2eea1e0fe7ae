/**
 * A job's last `job` event reaches its watchers even when the finishing activity runs again: a
 * Redis publish that fails after the record was saved fails the activity, Temporal retries it, and
 * the retry finds the record already saved as finished. On the run's real Redis.
 */
import { randomUUID } from 'node:crypto';
import { createJobActivities, type JobActivityDeps } from '../../activities/jobs';
import { createRoomEmitter } from '../../activities/socket-events';
import type { Job, StoredJob } from '../../common/jobs';
import { createJobStore } from '../../store/jobs';
import { fileRedis } from '../helpers/store-device';

const redis = fileRedis('finish-event');

/** A dependency finishJob must not touch: any use fails the test. */
function unused<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get() {
      throw new Error(`finishJob used ${name}`);
    },
  });
}

function runningJob(): StoredJob {
  const counts = { queued: 0, sent: 0, acknowledged: 1, succeeded: 0, failed: 0, expired: 0, canceled: 0 };
  return {
    id: randomUUID(),
    projectId: randomUUID(),
    state: 'running',
    action: { type: 'command', pin: 'V1', value: '1' },
    target: { tag: 'all' },
    total: 1,
    counts,
    createdAt: new Date().toISOString(),
    startedAt: new Date().toISOString(),
    finishedAt: null,
    rollout: { maxPerMinute: null, abortFailureRatio: null, minDevices: 1 },
    ttlSeconds: 60,
    startAt: null,
    ota: null,
  };
}

test('a finishing activity retried after its event failed tells the watchers the job completed', async () => {
  const job = runningJob();
  await createJobStore(redis()).create(job);
  const told: Job[] = [];
  const publish = createRoomEmitter(redis());
  let publishes = 0;
  const emit: JobActivityDeps['emit'] = async (rooms, event, ...args) => {
    publishes += 1;
    if (publishes === 1) throw new Error('Redis took no publish');
    await publish(rooms, event, ...args);
    told.push(args[0] as Job);
  };
  const acts = createJobActivities({
    redis: redis(),
    emit,
    mqtt: unused('the broker'),
    logger: unused('the logger'),
    topicRoot: 'dds',
    ingest: unused('ingest'),
  });

  await expect(acts.finishJob({ jobId: job.id, state: 'completed' })).rejects.toThrow('Redis took no publish');
  await acts.finishJob({ jobId: job.id, state: 'completed' });

  expect(told.map((j) => [j.id, j.state])).toEqual([[job.id, 'completed']]);
  expect((await createJobStore(redis()).get(job.id))?.state).toBe('completed');
});
