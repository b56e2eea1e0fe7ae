/** What the baseline subscriber process and the bench say to each other over the IPC channel. */
export type BaselineEvent =
  | { type: 'ready' }
  | {
      type: 'report';
      /** Pipelines Redis acknowledged, and those it failed. */
      written: number;
      failed: number;
      /** Publish → write acknowledged, ms, one per written message. */
      latencies: number[];
      /** When each write was acknowledged (epoch ms). */
      ackTimes: number[];
    };

export type BaselineReport = Extract<BaselineEvent, { type: 'report' }>;

export type BaselineCommand = { type: 'report' };

/** The baseline writes the service's key layout under this prefix, apart from the service's own keys. */
export const BASELINE_KEY_PREFIX = 'baseline:';

/**
 * Where the baseline keeps each point: a sorted set per pin (scored by when it was written), the
 * cheapest Redis write that keeps every point; the service appends to its history stream instead.
 */
export const baselineHistoryKey = (deviceId: string, pin: string): string => `${BASELINE_KEY_PREFIX}history:${deviceId}:${pin}`;
