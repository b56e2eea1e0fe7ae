/**
 * What the gateway calls to reach a job's workflow (workflows/job/, docs/jobs.md): start it, and
 * cancel it. Each call carries a deadline; a Temporal that is down or too slow is a 503 naming it.
 */
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { AppError, DependencyUnavailableError } from '../../common/errors';
import { JOB_WORKFLOW_TYPE, type JobInput, jobWorkflowId } from '../../common/jobs';
import { cancelJobUpdate } from '../../workflows/job/definitions';
import type { runJob } from '../../workflows/job/run-job';
import { withTemporalDeadline } from './temporal-deadline';
import { isTemporalDown } from './temporal-down';

/** Deadline of the start (the server answers alone) and of a cancel (it waits for the workflow to end the job). */
const START_TIMEOUT_MS = 1_500;
const CANCEL_TIMEOUT_MS = 5_000;

function translate(err: unknown): never {
  if (err instanceof WorkflowNotFoundError) throw new AppError('CONFLICT', 'The job has ended already');
  if (isTemporalDown(err)) throw new DependencyUnavailableError('temporal', { cause: err });
  throw err;
}

export function createJobClient(client: Client, taskQueue: string) {
  const { workflow } = client;
  const bounded = <T>(ms: number, fn: () => Promise<T>): Promise<T> => withTemporalDeadline(workflow.connection, ms, fn).catch(translate);
  return {
    /** Starts a job's workflow; a second start of the same job is refused by Temporal (the id is taken). */
    async start(input: JobInput): Promise<void> {
      await bounded(START_TIMEOUT_MS, () =>
        workflow.start<typeof runJob>(JOB_WORKFLOW_TYPE, {
          workflowId: jobWorkflowId(input.jobId),
          taskQueue,
          args: [input],
          memo: { projectId: input.projectId },
        }),
      );
    },

    /** Cancels a running or scheduled job; resolves once its record says canceled. */
    async cancel(jobId: string): Promise<void> {
      await bounded(CANCEL_TIMEOUT_MS, () => workflow.getHandle(jobWorkflowId(jobId)).executeUpdate(cancelJobUpdate));
    },
  };
}

export type JobClient = ReturnType<typeof createJobClient>;
