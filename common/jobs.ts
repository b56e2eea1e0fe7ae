/**
 * Jobs (DESIGN §13, docs/jobs.md): one action, a command or a firmware update, rolled out to a
 * fixed set of a project's devices by a durable workflow (workflows/job/). Pure types and rules,
 * shared by the gateway, the job's activities and its workflow.
 */

export const JOB_STATES = ['scheduled', 'running', 'completed', 'canceled', 'aborted'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A device's state in a job; `pending` until the job has sent to it (not counted in `counts`). */
export const JOB_DEVICE_STATES = ['pending', 'queued', 'sent', 'acknowledged', 'succeeded', 'failed', 'expired', 'canceled'] as const;
export type JobDeviceState = (typeof JOB_DEVICE_STATES)[number];
export type CountedState = Exclude<JobDeviceState, 'pending'>;
export type JobCounts = Record<CountedState, number>;

/** States a device's step ends in: the job no longer follows it. */
export const FINAL_DEVICE_STATES: ReadonlySet<JobDeviceState> = new Set(['acknowledged', 'succeeded', 'failed', 'expired', 'canceled']);
/** Of the final states, the ones that count against `abortFailureRatio`. */
export const FAILED_DEVICE_STATES: ReadonlySet<JobDeviceState> = new Set(['failed', 'expired']);

/** The device list's filter fields (DESIGN §13), as a job stores them (times as ISO 8601). */
export interface JobFilter {
  status?: 'online' | 'offline';
  q?: string;
  tag?: string;
  templateId?: string;
  firmwareVersion?: string;
  firmwareVersionLt?: string;
  lastSeenBefore?: string;
  lastSeenAfter?: string;
}

export interface JobTarget {
  deviceIds?: string[];
  tag?: string;
  templateId?: string;
  filter?: JobFilter;
}

/** What an OTA job carries of its image, fixed when the job is made (docs/jobs.md). */
export interface OtaImage {
  firmwareId: string;
  version: string;
  size: number;
  sha256: string;
}

export type JobAction = { type: 'command'; pin: string; value: string } | { type: 'ota'; firmwareId: string };

export interface JobRollout {
  /** At most this many devices sent to per minute; every device at once when unset. */
  maxPerMinute: number | null;
  /** The job aborts once failed and expired devices pass this share of the devices finished. */
  abortFailureRatio: number | null;
  /** ... counted only once at least this many devices are finished. */
  minDevices: number;
}

/** The Job of DESIGN §13, as the API and the `job` event show it. */
export interface Job {
  id: string;
  projectId: string;
  state: JobState;
  action: JobAction;
  target: JobTarget;
  total: number;
  counts: JobCounts;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The job as stored: the Job and what its workflow goes by. */
export interface StoredJob extends Job {
  rollout: JobRollout;
  ttlSeconds: number;
  startAt: string | null;
  /** An OTA job's image, fixed when the job is made, and the address devices download from. */
  ota: { image: OtaImage; downloadBase: string } | null;
}

/** The Job of DESIGN §13, exactly, out of the stored record. */
export function jobView({ rollout: _r, ttlSeconds: _t, startAt: _s, ota: _o, ...job }: StoredJob): Job {
  return job;
}

/** One device of a job (`GET /jobs/{id}/devices`). */
export interface JobDevice {
  deviceId: string;
  state: JobDeviceState;
  /** The command receipt of a command job's send (docs/commands.md); null for OTA and before the send. */
  commandId: string | null;
  updatedAt: string;
  error: string | null;
  /** When the job sent to it (epoch ms), for the TTL; null while pending. */
  sentMs: number | null;
}

/** What a device reports on `{root}/{deviceId}/ota/status` (DESIGN §13). */
export const OTA_REPORT_STATES = ['downloading', 'installing', 'done', 'failed'] as const;
export interface OtaReport {
  jobId: string;
  state: (typeof OTA_REPORT_STATES)[number];
  progress?: number;
  error?: string;
}

/** What the job's workflow is started with; the rest it reads from the record. */
export interface JobInput {
  jobId: string;
  projectId: string;
  rollout: JobRollout;
  /** Epoch ms, or null: start at once. */
  startAtMs: number | null;
  ttlSeconds: number;
  /** Carried over a continue-as-new. */
  progress?: JobProgress;
}

/** Where a running job is: the next target to send to, of `total`. */
export interface JobProgress {
  next: number;
  total: number;
}

export const JOB_WORKFLOW_TYPE = 'runJob';
export const jobWorkflowId = (jobId: string): string => `job:${jobId}`;

export const zeroCounts = (): JobCounts => ({
  queued: 0,
  sent: 0,
  acknowledged: 0,
  succeeded: 0,
  failed: 0,
  expired: 0,
  canceled: 0,
});

/** Default job TTL: a day (docs/jobs.md). */
export const DEFAULT_JOB_TTL_S = 86_400;
/** Default minDevices before the failure ratio is judged. */
export const DEFAULT_MIN_DEVICES = 10;
