import { FINAL_DEVICE_STATES, JOB_DEVICE_STATES } from '../../../../common/jobs';
import type { Firmware, Job, JobCounts, JobDeviceState, JobFilter, JobTarget } from '../../api/types';

/** What a job does, in words: `Write V3 = on`, `Update to firmware 2.0.0`. */
export function actionText(job: Job, images: readonly Firmware[] = []): string {
  if (job.action.type === 'command') return `Write ${job.action.pin} = ${job.action.value}`;
  const { firmwareId } = job.action;
  const image = images.find((f) => f.id === firmwareId);
  return image ? `Update to ${image.name} ${image.version}` : 'Firmware update';
}

const FILTER_WORDS: Record<keyof JobFilter, string> = {
  status: 'status',
  q: 'name contains',
  tag: 'tag',
  templateId: 'template',
  firmwareVersion: 'firmware',
  firmwareVersionLt: 'firmware below',
  lastSeenAfter: 'seen after',
  lastSeenBefore: 'seen before',
};

/** Which devices a job is for, in words: `3 devices`, `tag north`, `tag north, firmware below 2.0.0`. */
export function targetText(target: JobTarget): string {
  if (target.deviceIds) return `${target.deviceIds.length} device${target.deviceIds.length === 1 ? '' : 's'}`;
  if (target.tag) return `tag ${target.tag}`;
  if (target.templateId) return 'a template';
  const parts = Object.entries(target.filter ?? {}).map(([k, v]) => `${FILTER_WORDS[k as keyof JobFilter]} ${v}`);
  return parts.length > 0 ? parts.join(', ') : 'every device';
}

/** Devices whose step has ended, whichever way (acknowledged, succeeded, failed, expired, canceled). */
export const finishedCount = (job: Job): number =>
  Object.entries(job.counts).reduce((sum, [state, n]) => (FINAL_DEVICE_STATES.has(state as JobDeviceState) ? sum + n : sum), 0);

/** Each device state with its count, `pending` (not sent to yet) being what `counts` leaves out of `total`. */
export function stateCounts(job: Job): Array<[JobDeviceState, number]> {
  const counted = Object.values(job.counts).reduce((a, b) => a + b, 0);
  return JOB_DEVICE_STATES.map((s) => [s, s === 'pending' ? Math.max(0, job.total - counted) : job.counts[s as keyof JobCounts]]);
}

/** Whether the job may still change (and so be canceled). */
export const jobOpen = (job: Job): boolean => job.finishedAt === null;
