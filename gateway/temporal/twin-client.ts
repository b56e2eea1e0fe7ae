/**
 * What the gateway calls to reach a device's twin (DESIGN §1). Every call that may be a device's
 * first contact starts the twin if it is not running (signalWithStart / updateWithStart), so a
 * twin that was never started, or was lost, heals on first use.
 */
import {
  ApplicationFailure,
  type Client,
  WithStartWorkflowOperation,
  WorkflowClient,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { twinWorkflowId, type DeviceStatus, type PinLock } from '../../common/contracts';
import { AppError, DependencyUnavailableError, ERRORS, type ErrorCode } from '../../common/errors';
import { withTemporalDeadline } from './temporal-deadline';
import { isTemporalDown } from './temporal-down';
import type {
  ActivityInput,
  AlarmEdgeInput,
  InfoInput,
  RulesChangedResult,
  StatusInput,
  TwinView,
  UnlockResult,
} from '../../common/twin-contracts';
import {
  activitySignal,
  alarmEdgeSignal,
  endSignal,
  infoSignal,
  lockUpdate,
  rulesChangedUpdate,
  stateQuery,
  statusSignal,
  type TwinInput,
  unlockUpdate,
} from '../../workflows/twin/definitions';
import type { deviceTwin } from '../../workflows/twin/device-twin';

export interface TwinClientOptions {
  client: Client | WorkflowClient;
  taskQueue: string;
  /** Heartbeat timeout given to twins this client starts (DEVICE_HEARTBEAT_TIMEOUT_S). */
  heartbeatTimeoutS: number;
  /** Deadline of calls that wait for the twin to run (Updates, queries). Default 5 s. */
  timeoutMs?: number;
  /** Deadline of calls the Temporal server answers alone (start, signals). Default 1.5 s. */
  sendTimeoutMs?: number;
  /** Counts each signal and Update sent or failed (common/metrics.ts `twin.call`). */
  onCall?: (kind: 'signal' | 'update', name: string, outcome: 'sent' | 'failed') => void;
}

const WORKFLOW_TYPE = 'deviceTwin';

/**
 * Translates Temporal failures into the service's errors: a twin's refusal keeps its code
 * (INVALID_PIN, PIN_LOCKED, VALIDATION_ERROR, DEVICE_NOT_FOUND); a Temporal that is down or missed
 * the deadline is DependencyUnavailableError(temporal), a 503.
 */
function translate(err: unknown): never {
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (cause instanceof ApplicationFailure && cause.type && cause.type in ERRORS) {
    throw new AppError(cause.type as ErrorCode, cause.message);
  }
  if (isTemporalDown(err)) throw new DependencyUnavailableError('temporal', { cause: err });
  throw err;
}

export function createTwinClient(options: TwinClientOptions) {
  const workflow = options.client instanceof WorkflowClient ? options.client : options.client.workflow;
  const { taskQueue, heartbeatTimeoutS } = options;
  const timeoutMs = options.timeoutMs ?? 5000;
  const sendTimeoutMs = options.sendTimeoutMs ?? 1500;

  const startOptions = (deviceId: string, projectId: string) => ({
    workflowId: twinWorkflowId(deviceId),
    taskQueue,
    args: [{ deviceId, projectId, heartbeatTimeoutS }] as [TwinInput],
    memo: { projectId },
  });

  /** Runs a call with a deadline; a Temporal that is down or too slow becomes DependencyUnavailableError. */
  const bounded = <T>(fn: () => Promise<T>, ms = timeoutMs): Promise<T> =>
    withTemporalDeadline(workflow.connection, ms, fn).catch(translate);

  const counted = async <T>(kind: 'signal' | 'update', name: string, call: Promise<T>): Promise<T> => {
    try {
      const result = await call;
      options.onCall?.(kind, name, 'sent');
      return result;
    } catch (err) {
      // A twin that is not running (end of a device that never had one) is an answer, not a failure.
      if (!(err instanceof WorkflowNotFoundError)) options.onCall?.(kind, name, 'failed');
      throw err;
    }
  };

  const signalWithStart = async (name: string, send: () => Promise<unknown>): Promise<void> => {
    await bounded(() => counted('signal', name, send()), sendTimeoutMs);
  };

  /** Runs an Update, starting the twin first when it is not running. */
  function update<Ret, Args extends unknown[]>(
    deviceId: string,
    projectId: string,
    def: UpdateDefinition<Ret, Args>,
    args: Args,
  ): Promise<Ret> {
    return bounded(() =>
      counted(
        'update',
        def.name,
        workflow.executeUpdateWithStart<typeof deviceTwin, Ret, Args>(def, {
          args,
          startWorkflowOperation: new WithStartWorkflowOperation<typeof deviceTwin>(WORKFLOW_TYPE, {
            ...startOptions(deviceId, projectId),
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        }),
      ),
    );
  }

  return {
    /** Starts the twin of a new device; starting a running twin again is a no-op. */
    async start(deviceId: string, projectId: string): Promise<void> {
      await bounded(
        () =>
          workflow.start<typeof deviceTwin>(WORKFLOW_TYPE, {
            ...startOptions(deviceId, projectId),
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        sendTimeoutMs,
      );
    },

    /**
     * A message came from a device the mirror shows offline. `pin` is the pin it was for, if any;
     * `ahead`: the gateway showed it online ahead of the twin (gateway/temporal/status-ahead.ts, carried by the outbox).
     */
    activity(deviceId: string, projectId: string, at: string, pin?: string, { ahead = false }: { ahead?: boolean } = {}): Promise<void> {
      const signalArgs: [ActivityInput] = [{ at, ...(pin === undefined ? {} : { pin }), ...(ahead ? { ahead } : {}) }];
      return signalWithStart(activitySignal.name, () =>
        workflow.signalWithStart(WORKFLOW_TYPE, { ...startOptions(deviceId, projectId), signal: activitySignal, signalArgs }),
      );
    },

    /** The device's status topic (or its Last Will, `reason`) said online or offline. */
    status(deviceId: string, projectId: string, status: DeviceStatus, at: string, reason?: StatusInput['reason']): Promise<void> {
      const signalArgs: [StatusInput] = [reason ? { status, at, reason } : { status, at }];
      return signalWithStart(statusSignal.name, () =>
        workflow.signalWithStart(WORKFLOW_TYPE, { ...startOptions(deviceId, projectId), signal: statusSignal, signalArgs }),
      );
    },

    /** The device's info topic: firmware, IP, hardware. Add `at` to count it as activity too. */
    info(deviceId: string, projectId: string, info: InfoInput): Promise<void> {
      const signalArgs: [InfoInput] = [info];
      return signalWithStart(infoSignal.name, () =>
        workflow.signalWithStart(WORKFLOW_TYPE, { ...startOptions(deviceId, projectId), signal: infoSignal, signalArgs }),
      );
    },

    /** A threshold rule's alarm flipped (an outbox intent): the twin records it and times its reminders. */
    alarmEdge(deviceId: string, projectId: string, edge: AlarmEdgeInput): Promise<void> {
      const signalArgs: [AlarmEdgeInput] = [edge];
      return signalWithStart(alarmEdgeSignal.name, () =>
        workflow.signalWithStart(WORKFLOW_TYPE, { ...startOptions(deviceId, projectId), signal: alarmEdgeSignal, signalArgs }),
      );
    },

    /** Locks a pin (idempotent: a locked pin keeps its lock and it is returned). */
    lock(deviceId: string, projectId: string, pin: string, widgetId: string | null = null): Promise<PinLock> {
      return update(deviceId, projectId, lockUpdate, [{ pin, widgetId }]);
    },

    /** Releases a pin's lock; with `widgetId`, only a lock that widget holds. */
    unlock(deviceId: string, projectId: string, pin: string, widgetId?: string | null): Promise<UnlockResult> {
      return update(deviceId, projectId, unlockUpdate, [widgetId === undefined ? { pin } : { pin, widgetId }]);
    },

    /** The device's rules changed in Redis: the twin reloads them and answers with the ones it now watches. */
    rulesChanged(deviceId: string, projectId: string): Promise<RulesChangedResult> {
      return update(deviceId, projectId, rulesChangedUpdate, []);
    },

    /** The device was deleted: its twin completes. True if a running twin was told; a missing one is fine. */
    async end(deviceId: string): Promise<boolean> {
      try {
        await bounded(
          () => counted('signal', endSignal.name, workflow.getHandle(twinWorkflowId(deviceId)).signal(endSignal)),
          sendTimeoutMs,
        );
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },

    /** The twin's whole state, or null when the device has no twin. */
    async state(deviceId: string): Promise<TwinView | null> {
      try {
        return await bounded(() => workflow.getHandle(twinWorkflowId(deviceId)).query(stateQuery));
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
    },
  };
}

export type TwinClient = ReturnType<typeof createTwinClient>;
