/**
 * The job workflow's messages as Temporal knows them (names are part of running histories: never
 * renamed). The gateway (gateway/temporal/job-client.ts) sends them; run-job.ts handles them.
 */
import { defineUpdate } from '@temporalio/workflow';

/** Stops the job: nothing more is sent, devices not sent to are canceled; answers once the record says so. */
export const cancelJobUpdate = defineUpdate<void, []>('cancelJob');
