import type { JobDevice, OtaReport, StoredJob } from '../common/jobs';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/** How long a finished job and its devices are kept (docs/jobs.md). */
export const FINISHED_JOB_KEEP_S = 30 * 86_400;

const PUT_OTA_REPORT = luaScript('put-ota-report-2');

const parseDevice = (raw: string | null): JobDevice | null => (raw ? (JSON.parse(raw) as JobDevice) : null);

/**
 * Jobs in Redis (docs/jobs.md): the record (JSON, read by the GET endpoints without asking
 * Temporal), its targets in send order, one entry per device, and what devices reported on their
 * OTA status topic. The project's index entry is written before the record and read through it.
 */
export function createJobStore(redis: Redis) {
  return {
    async create(job: StoredJob): Promise<void> {
      await redis.zadd(keys.projectJobs(job.projectId), Date.parse(job.createdAt), job.id);
      await redis.set(keys.job(job.id), JSON.stringify(job));
    },

    /** Takes back a job whose workflow never started (index entry after the record). */
    async remove(job: StoredJob): Promise<void> {
      await redis.del(keys.job(job.id));
      await redis.zrem(keys.projectJobs(job.projectId), job.id);
    },

    async get(jobId: string): Promise<StoredJob | null> {
      const raw = await redis.get(keys.job(jobId));
      return raw ? (JSON.parse(raw) as StoredJob) : null;
    },

    /** A project's jobs, newest first (at most `limit`). */
    async list(projectId: string, limit: number): Promise<StoredJob[]> {
      const ids = await redis.zrevrange(keys.projectJobs(projectId), 0, limit - 1);
      const jobs = await Promise.all(ids.map((id) => redis.get(keys.job(id))));
      return jobs.flatMap((raw) => (raw ? [JSON.parse(raw) as StoredJob] : []));
    },

    /** Writes the record; true when it differs from the one stored (its `job` event is then due). */
    async save(job: StoredJob): Promise<boolean> {
      const json = JSON.stringify(job);
      const before = await redis.set(keys.job(job.id), json, 'GET');
      return before !== json;
    },

    /**
     * Fixes a job's targets, each `pending`, in one step; a repeat (the activity retried) keeps the
     * ones fixed first. Returns how many there are.
     */
    async fixTargets(jobId: string, deviceIds: string[], at: string): Promise<number> {
      const fixed = await redis.llen(keys.jobTargets(jobId));
      if (fixed > 0 || deviceIds.length === 0) return fixed;
      const entries = deviceIds.flatMap((deviceId) => {
        const entry: JobDevice = { deviceId, state: 'pending', commandId: null, updatedAt: at, error: null, sentMs: null };
        return [deviceId, JSON.stringify(entry)];
      });
      await redis
        .multi()
        .del(keys.jobTargets(jobId), keys.jobDevices(jobId))
        .rpush(keys.jobTargets(jobId), ...deviceIds)
        .hset(keys.jobDevices(jobId), ...entries)
        .exec();
      return deviceIds.length;
    },

    /** Target ids from index `from`, at most `count`, in send order. */
    async targets(jobId: string, from: number, count: number): Promise<string[]> {
      return count > 0 ? redis.lrange(keys.jobTargets(jobId), from, from + count - 1) : [];
    },

    /** The entries of the given devices (every target when `deviceIds` is omitted), in that order. */
    async devices(jobId: string, deviceIds?: string[]): Promise<JobDevice[]> {
      const ids = deviceIds ?? (await redis.lrange(keys.jobTargets(jobId), 0, -1));
      if (ids.length === 0) return [];
      const raw = await redis.hmget(keys.jobDevices(jobId), ...ids);
      return raw.flatMap((r) => parseDevice(r) ?? []);
    },

    async putDevices(jobId: string, entries: JobDevice[]): Promise<void> {
      if (entries.length === 0) return;
      await redis.hset(keys.jobDevices(jobId), ...entries.flatMap((e) => [e.deviceId, JSON.stringify(e)]));
    },

    /**
     * A device's OTA status report, kept only when the device is one of the job's targets (false
     * otherwise) and never over its final one (done, failed) with a progress report that came late.
     */
    async report(deviceId: string, report: OtaReport): Promise<boolean> {
      const final = report.state === 'done' || report.state === 'failed' ? '1' : '0';
      const written = await PUT_OTA_REPORT(
        redis,
        [keys.jobDevices(report.jobId), keys.jobReports(report.jobId)],
        [deviceId, JSON.stringify(report), final],
      );
      return written === 1;
    },

    /** The last OTA reports of the given devices, by device id. */
    async reports(jobId: string, deviceIds: string[]): Promise<Map<string, OtaReport>> {
      if (deviceIds.length === 0) return new Map();
      const raw = await redis.hmget(keys.jobReports(jobId), ...deviceIds);
      return new Map(deviceIds.flatMap((id, i) => (raw[i] ? [[id, JSON.parse(raw[i] as string) as OtaReport] as const] : [])));
    },

    /** A finished job's keys expire after FINISHED_JOB_KEEP_S. */
    async expireFinished(jobId: string): Promise<void> {
      await redis
        .multi()
        .expire(keys.job(jobId), FINISHED_JOB_KEEP_S)
        .expire(keys.jobTargets(jobId), FINISHED_JOB_KEEP_S)
        .expire(keys.jobDevices(jobId), FINISHED_JOB_KEEP_S)
        .expire(keys.jobReports(jobId), FINISHED_JOB_KEEP_S)
        .exec();
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
