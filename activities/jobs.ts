import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import { rooms } from '../common/contracts';
import { FINAL_DEVICE_STATES, type JobCounts, type JobDevice, type JobState, jobView, type StoredJob } from '../common/jobs';
import type { Logger } from '../common/logger';
import type { MqttClient } from '../common/mqtt';
import { otaTopic } from '../common/mqtt-topics';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import type { IngestInput, IngestResult } from '../gateway/ingest/ingest';
import { commandView, createCommandStore } from '../store/commands';
import { createJobStore } from '../store/jobs';
import { createOtaTokens } from '../store/ota-tokens';
import { commandStep, countsOf, isOpen, otaStep } from './job-steps';
import { selectJobTargets } from './job-targets';
import type { EmitToRooms } from './socket-events';

export interface JobActivityDeps {
  redis: Redis;
  mqtt: MqttClient;
  emit: EmitToRooms;
  logger: Logger;
  topicRoot: string;
  /** The one ingest pipeline (gateway/ingest/ingest.ts; workers/job-ingest.ts): a command job's sends are app writes through it. */
  ingest: (input: IngestInput) => Promise<IngestResult>;
}

/** What a look at a job's devices found: its counts, and how many devices it still follows. */
export interface JobSync {
  counts: JobCounts;
  open: number;
  changed: boolean;
}

/** Sends a job makes at once within one dispatch. */
const SENDS_AT_ONCE = 20;

/**
 * The job workflow's activities (workflows/job/, docs/jobs.md). Every change to the record is
 * saved to Redis (what the GET endpoints read) and, when it changed, emitted as `job` to the
 * project's room. Each is safe to run again: targets are fixed once, a device is sent to only
 * while `pending`, and a look at the devices moves each only forward.
 */
export function createJobActivities({ redis, mqtt, emit, logger, topicRoot, ingest }: JobActivityDeps) {
  const jobs = createJobStore(redis);
  const commands = createCommandStore(redis);
  const tokens = createOtaTokens(redis);

  async function recordOf(jobId: string): Promise<StoredJob> {
    const job = await jobs.get(jobId);
    if (!job) throw ApplicationFailure.nonRetryable(`job ${jobId} has no record`, 'JobGone');
    return job;
  }
  const tell = (job: StoredJob) => emit([rooms.project(job.projectId)], 'job', jobView(job));
  async function save(job: StoredJob): Promise<boolean> {
    const changed = await jobs.save(job);
    if (changed) await tell(job);
    return changed;
  }

  async function offerOta(job: StoredJob, deviceId: string, ttlMs: number): Promise<void> {
    if (!job.ota) throw ApplicationFailure.nonRetryable(`job ${job.id} has no image`, 'JobGone');
    const { image, downloadBase } = job.ota;
    const token = await tokens.mint({ firmwareId: image.firmwareId, deviceId, jobId: job.id }, Math.max(1, Math.ceil(ttlMs / 1000)));
    const url = `${downloadBase}/external/api/firmware/${image.firmwareId}?token=${token}`;
    const offer = { jobId: job.id, firmwareId: image.firmwareId, version: image.version, size: image.size, sha256: image.sha256, url };
    if (!mqtt.connected) throw new Error('not connected to the broker');
    await mqtt.publishAsync(otaTopic(topicRoot, deviceId), JSON.stringify(offer), { qos: 1 });
  }

  const isOnline = async (deviceId: string) => (await redis.hget(keys.deviceState(deviceId), 'status')) === 'online';

  /** One device's send: a command through ingest (queued for an offline device, with the job's TTL), or the OTA offer. */
  async function send(job: StoredJob, entry: JobDevice, now: number): Promise<JobDevice> {
    const at = { updatedAt: new Date(now).toISOString(), sentMs: now };
    if (job.action.type === 'command') {
      const result = await ingest({
        deviceId: entry.deviceId,
        pin: job.action.pin,
        value: job.action.value,
        origin: 'app',
        ttlSeconds: job.ttlSeconds,
      });
      if (!result.ok) return { ...entry, ...at, state: 'failed', error: result.code };
      return { ...entry, ...at, state: result.delivered ? 'sent' : 'queued', commandId: result.commandId };
    }
    if (!(await isOnline(entry.deviceId))) return { ...entry, ...at, state: 'queued' };
    await offerOta(job, entry.deviceId, job.ttlSeconds * 1000);
    return { ...entry, ...at, state: 'sent' };
  }

  /** Followed devices of a command job after a look at their receipts, read together (commands.many). */
  async function lookAtReceipts(entries: JobDevice[], now: number): Promise<JobDevice[]> {
    const stored = await commands.many(entries.flatMap((e) => (e.commandId ? [e.commandId] : [])));
    return entries.map((entry) => {
      const command = entry.commandId ? stored.get(entry.commandId) : null;
      return commandStep(entry, command ? commandView(command, now) : null, now);
    });
  }

  /** A followed device of an OTA job after a look at its report and firmware (an offline target is offered once online). */
  async function lookAtUpdate(job: StoredJob, entry: JobDevice, now: number): Promise<JobDevice> {
    const ttlMs = job.ttlSeconds * 1000;
    const [reports, firmwareVersion] = await Promise.all([
      jobs.reports(job.id, [entry.deviceId]),
      redis.hget(keys.deviceState(entry.deviceId), 'firmwareVersion'),
    ]);
    const next = otaStep(entry, {
      report: reports.get(entry.deviceId),
      firmwareVersion,
      version: job.ota?.image.version ?? '',
      now,
      ttlMs,
    });
    if (next.state !== 'queued' || !(await isOnline(entry.deviceId))) return next;
    await offerOta(job, entry.deviceId, Math.max(1000, (entry.sentMs ?? now) + ttlMs - now));
    return { ...next, state: 'sent', updatedAt: new Date(now).toISOString() };
  }

  async function inGroups<T>(items: T[], work: (item: T) => Promise<JobDevice>): Promise<JobDevice[]> {
    const out: JobDevice[] = [];
    for (let i = 0; i < items.length; i += SENDS_AT_ONCE) out.push(...(await Promise.all(items.slice(i, i + SENDS_AT_ONCE).map(work))));
    return out;
  }

  return {
    /** Tells the job's watchers it exists (its first step, before any wait for `startAt`). */
    async announceJob({ jobId }: { jobId: string }): Promise<void> {
      await tell(await recordOf(jobId));
    },

    /** Fixes the job's targets (DESIGN §13: when it starts) and marks it running; returns how many. */
    async startJob({ jobId }: { jobId: string }): Promise<{ total: number }> {
      const job = await recordOf(jobId);
      const now = new Date().toISOString();
      const total = await jobs.fixTargets(jobId, await selectJobTargets(redis, job), now);
      await save({ ...job, state: 'running', startedAt: job.startedAt ?? now, total });
      return { total };
    },

    /**
     * Sends to targets [from, from + count) that are still pending: `spacingMs` apart when given
     * (a rollout's rate inside one dispatch), else in groups; each entry is saved once sent.
     */
    async dispatchJob({ jobId, from, count, spacingMs }: { jobId: string; from: number; count: number; spacingMs: number }): Promise<void> {
      const job = await recordOf(jobId);
      if (job.state !== 'running') return;
      const pending = (await jobs.devices(jobId, await jobs.targets(jobId, from, count))).filter((e) => e.state === 'pending');
      const step = spacingMs > 0 ? 1 : SENDS_AT_ONCE;
      for (let i = 0; i < pending.length; i += step) {
        if (i > 0 && spacingMs > 0) await sleep(spacingMs);
        const group = pending.slice(i, i + step);
        await jobs.putDevices(jobId, await Promise.all(group.map((entry) => send(job, entry, Date.now()))));
      }
    },

    /** Looks at every device the job follows, saves what moved and the counts (a `job` event when they changed). */
    async syncJob({ jobId }: { jobId: string }): Promise<JobSync> {
      const job = await recordOf(jobId);
      const now = Date.now();
      const all = await jobs.devices(jobId);
      const followed = all.filter((e) => e.state !== 'pending' && !FINAL_DEVICE_STATES.has(e.state));
      const looked =
        job.action.type === 'command'
          ? await lookAtReceipts(followed, now)
          : await inGroups(followed, (entry) => lookAtUpdate(job, entry, now));
      const moved = looked.filter((e, i) => e !== followed[i]);
      await jobs.putDevices(jobId, moved);
      const byId = new Map(moved.map((e) => [e.deviceId, e]));
      const current = all.map((e) => byId.get(e.deviceId) ?? e);
      const counts = countsOf(current);
      const changed = await save({ ...job, counts });
      if (moved.length > 0) logger.debug({ jobId, moved: moved.length }, 'job devices moved');
      return { counts, open: current.filter((e) => isOpen(e, now, job.ttlSeconds * 1000)).length, changed };
    },

    /** Ends the job: devices not sent to yet are canceled (cancel, abort), the record says how it ended. */
    async finishJob({ jobId, state }: { jobId: string; state: Extract<JobState, 'completed' | 'canceled' | 'aborted'> }): Promise<void> {
      const job = await recordOf(jobId);
      const now = new Date().toISOString();
      const all = await jobs.devices(jobId);
      const canceled = all.filter((e) => e.state === 'pending').map((e): JobDevice => ({ ...e, state: 'canceled', updatedAt: now }));
      await jobs.putDevices(jobId, canceled);
      const byId = new Map(canceled.map((e) => [e.deviceId, e]));
      const counts = countsOf(all.map((e) => byId.get(e.deviceId) ?? e));
      // Told whether or not the save changed the record: a retry after a save whose event failed
      // finds it saved, and the last event is the one a watcher waits for.
      const finished: StoredJob = { ...job, state, counts, finishedAt: job.finishedAt ?? now };
      await jobs.save(finished);
      await tell(finished);
      await jobs.expireFinished(jobId);
    },
  };
}

export type JobActivities = ReturnType<typeof createJobActivities>;
