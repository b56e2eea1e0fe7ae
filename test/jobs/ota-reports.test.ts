/**
 * A device's OTA status reports as its job reads them (store/jobs.ts, docs/jobs.md), on the run's
 * real Redis: the gateway handles a device's messages side by side, so a progress report sent just
 * before `failed` or `done` can be stored after it; the final one must stay, or the job would
 * follow the device for good (the simulator's --ota-fail job that never completed in CI).
 */
import { randomUUID } from 'node:crypto';
import { createJobStore } from '../../store/jobs';
import { fileRedis } from '../helpers/store-device';

const redis = fileRedis('ota-reports');

async function jobOf(...deviceIds: string[]) {
  const jobs = createJobStore(redis());
  const jobId = randomUUID();
  await jobs.fixTargets(jobId, deviceIds, new Date().toISOString());
  return { jobs, jobId };
}

test('a progress report stored after a failed or done one does not replace it', async () => {
  const failing = randomUUID();
  const updated = randomUUID();
  const { jobs, jobId } = await jobOf(failing, updated);
  expect(await jobs.report(failing, { jobId, state: 'failed', error: 'flash write error' })).toBe(true);
  expect(await jobs.report(failing, { jobId, state: 'downloading', progress: 75 })).toBe(true);
  expect(await jobs.report(updated, { jobId, state: 'done' })).toBe(true);
  expect(await jobs.report(updated, { jobId, state: 'installing', progress: 100 })).toBe(true);
  const reports = await jobs.reports(jobId, [failing, updated]);
  expect(reports.get(failing)).toEqual({ jobId, state: 'failed', error: 'flash write error' });
  expect(reports.get(updated)).toEqual({ jobId, state: 'done' });
});

test('progress reports replace each other, and a final report replaces a progress one', async () => {
  const device = randomUUID();
  const { jobs, jobId } = await jobOf(device);
  await jobs.report(device, { jobId, state: 'downloading', progress: 0 });
  await jobs.report(device, { jobId, state: 'downloading', progress: 50 });
  expect((await jobs.reports(jobId, [device])).get(device)).toEqual({ jobId, state: 'downloading', progress: 50 });
  await jobs.report(device, { jobId, state: 'failed', error: 'sha256 mismatch' });
  expect((await jobs.reports(jobId, [device])).get(device)?.state).toBe('failed');
});

test("a report of a device that is not one of the job's targets is not kept", async () => {
  const { jobs, jobId } = await jobOf(randomUUID());
  const stranger = randomUUID();
  expect(await jobs.report(stranger, { jobId, state: 'done' })).toBe(false);
  expect((await jobs.reports(jobId, [stranger])).size).toBe(0);
});
