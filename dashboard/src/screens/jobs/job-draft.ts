import type { JobRequest, JobTarget } from '../../api/types';

/** The new-job form as typed; empty optional fields leave the server's defaults (docs/jobs.md). */
export interface JobDraft {
  kind: 'command' | 'ota';
  pin: string;
  value: string;
  firmwareId: string;
  maxPerMinute: string;
  /** Abort once failed and expired devices pass this percentage of those finished. */
  abortPercent: string;
  minDevices: string;
  ttlSeconds: string;
}

export const EMPTY_JOB_DRAFT: JobDraft = {
  kind: 'command',
  pin: 'V0',
  value: '',
  firmwareId: '',
  maxPerMinute: '',
  abortPercent: '',
  minDevices: '',
  ttlSeconds: '',
};

const numberOf = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** The `POST /jobs` body of a draft for one project's target; the server checks the values. */
export function jobRequest(draft: JobDraft, projectId: string, target: JobTarget): JobRequest {
  const abortPercent = numberOf(draft.abortPercent);
  const rollout = Object.fromEntries(
    Object.entries({
      maxPerMinute: numberOf(draft.maxPerMinute),
      abortFailureRatio: abortPercent === undefined ? undefined : abortPercent / 100,
      minDevices: numberOf(draft.minDevices),
    }).filter(([, v]) => v !== undefined),
  );
  const ttlSeconds = numberOf(draft.ttlSeconds);
  return {
    projectId,
    target,
    action:
      draft.kind === 'command'
        ? { type: 'command', pin: draft.pin.trim(), value: draft.value }
        : { type: 'ota', firmwareId: draft.firmwareId },
    rollout,
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  };
}
