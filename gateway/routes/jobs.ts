import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { DEFAULT_MIN_DEVICES, jobView, type StoredJob, zeroCounts } from '../../common/jobs';
import type { Role } from '../../common/roles';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { projectRecordAccess } from '../access/record-access';
import { createJobBody, jobDevicesQuery, jobListQuery } from '../schemas/job';
import type { RouteDeps } from './route-deps';

const uuid = z.uuid();
/** A project's jobs a list shows, newest first. */
const LISTED_JOBS = 100;

const invalid = (field: string, problem: string) => new AppError('VALIDATION_ERROR', `${field} ${problem}`, [{ field, problem }]);

/** Where devices download firmware from: PUBLIC_URL, else the address this request came to. */
const downloadBase = (publicUrl: string | undefined, req: Request): string =>
  (publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/\/$/, '');

/**
 * Jobs (DESIGN §13, docs/jobs.md): viewers read; editors create and cancel. A job is a record in
 * Redis, read here, and a workflow (workflows/job/) that writes it as it goes.
 */
export function jobRoutes({ config, stores, jobRuns }: Pick<RouteDeps, 'config' | 'stores' | 'jobRuns'>): Router {
  const router = Router();

  async function jobFor(res: Response, jobId: string, needed: Role): Promise<StoredJob> {
    const job = uuid.safeParse(jobId).success ? await stores.jobs.get(jobId) : null;
    if (!job) throw new AppError('JOB_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), job.projectId, needed, 'JOB_NOT_FOUND');
    return job;
  }

  router.post('/jobs', async (req, res) => {
    const body = parseInput(createJobBody, req.body, 'body');
    const { project } = await projectAccess(stores, userIdOf(res), body.projectId, 'editor');
    if (body.target.templateId !== undefined) {
      const template = await stores.templates.get(body.target.templateId);
      if (template?.projectId !== project.id) throw invalid('body.target.templateId', 'not a template of the project');
    }
    let ota: StoredJob['ota'] = null;
    if (body.action.type === 'ota') {
      const firmware = await stores.firmware.get(body.action.firmwareId);
      if (firmware?.projectId !== project.id) throw invalid('body.action.firmwareId', 'not a firmware image of the project');
      const { id: firmwareId, version, size, sha256 } = firmware;
      ota = { image: { firmwareId, version, size, sha256 }, downloadBase: downloadBase(config.PUBLIC_URL, req) };
    }
    const job: StoredJob = {
      id: randomUUID(),
      projectId: project.id,
      state: 'scheduled',
      action: body.action,
      target: body.target,
      total: 0,
      counts: zeroCounts(),
      createdAt: new Date().toISOString(),
      startedAt: null,
      finishedAt: null,
      rollout: {
        maxPerMinute: body.rollout.maxPerMinute ?? null,
        abortFailureRatio: body.rollout.abortFailureRatio ?? null,
        minDevices: body.rollout.minDevices ?? DEFAULT_MIN_DEVICES,
      },
      ttlSeconds: body.ttlSeconds,
      startAt: body.startAt ?? null,
      ota,
    };
    await stores.jobs.create(job);
    try {
      await jobRuns.start({
        jobId: job.id,
        projectId: job.projectId,
        rollout: job.rollout,
        startAtMs: job.startAt === null ? null : Date.parse(job.startAt),
        ttlSeconds: job.ttlSeconds,
      });
    } catch (err) {
      // Not started: no record of a job that will never run.
      await stores.jobs.remove(job).catch(() => undefined);
      throw err;
    }
    sendData(res, jobView(job), 201);
  });

  router.get('/jobs', async (req, res) => {
    const { projectId } = parseInput(jobListQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'viewer');
    sendData(res, { jobs: (await stores.jobs.list(project.id, LISTED_JOBS)).map(jobView) });
  });

  router.get('/jobs/:jobId', async (req, res) => {
    sendData(res, jobView(await jobFor(res, req.params.jobId, 'viewer')));
  });

  router.get('/jobs/:jobId/devices', async (req, res) => {
    const job = await jobFor(res, req.params.jobId, 'viewer');
    const { state, page, limit } = parseInput(jobDevicesQuery, req.query, 'query');
    const all = await stores.jobs.devices(job.id);
    const matching = state === undefined ? all : all.filter((d) => d.state === state);
    const devices = matching
      .slice((page - 1) * limit, page * limit)
      .map(({ deviceId, state: s, commandId, updatedAt, error }) => ({ deviceId, state: s, commandId, updatedAt, error }));
    sendData(res, { devices, total: matching.length, page, limit });
  });

  router.post('/jobs/:jobId/cancel', async (req, res) => {
    const job = await jobFor(res, req.params.jobId, 'editor');
    if (job.finishedAt !== null) throw new AppError('CONFLICT', `The job has ended already (${job.state})`);
    await jobRuns.cancel(job.id);
    sendData(res, jobView((await stores.jobs.get(job.id)) ?? job));
  });

  return router;
}
