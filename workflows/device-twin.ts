/**
 * The device twin (DESIGN §1, §5, §6, §8): one long-running workflow per device, id
 * `device-twin:{deviceId}`. This file is the shell: it takes messages, asks the pure core
 * (twin-state.ts) what they mean, runs the effects it returns through activities and child
 * workflows one at a time, sleeps until the next deadline, and continues-as-new. Every decision
 * lives in the core; all run state lives in its one state object.
 *
 * Workflow code: no Node imports, activities imported as types only. A change here must replay
 * the committed histories (test/twin/replay.test.ts, docs/workflow-versioning.md).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { TwinActivities } from '../activities';
import type { TwinRule } from '../activities/types';
import type { NotificationRecord, PinLock } from '../common/contracts';
import { notificationWorkflowId } from '../common/contracts';
import { LOCAL_RETRY_THRESHOLD } from './local-retry';
import { deliverNotification } from './notification-delivery';
import * as twin from './twin-state';
import type {
  ActivityInput,
  AlarmEdgeInput,
  InfoInput,
  LockInput,
  StatusInput,
  TwinConfig,
  TwinEffect,
  TwinState,
  TwinView,
  UnlockInput,
} from './twin-state';

export type { ActivityInput, AlarmEdgeInput, InfoInput, LockInput, StatusInput, TwinState, TwinView, UnlockInput } from './twin-state';

export interface UnlockResult {
  released: boolean;
}

export interface RulesChangedResult {
  /** The rules the twin watches after the reload (enabled no_data, offline and online rules). */
  rules: TwinRule[];
}

export interface TwinInput extends TwinConfig {
  /** Carried by continue-as-new. */
  state?: TwinState;
}

export interface TwinEnd {
  deviceId: string;
  reason: 'ended' | 'device-missing';
  endedAt: string;
}

export const activitySignal = defineSignal<[ActivityInput]>('activity');
export const statusSignal = defineSignal<[StatusInput]>('status');
export const infoSignal = defineSignal<[InfoInput]>('info');
/** A threshold rule's alarm flipped on the ingest path (docs/alarms.md): sent once per edge, never per value. */
export const alarmEdgeSignal = defineSignal<[AlarmEdgeInput]>('alarmEdge');
/** The device was deleted: the twin finishes what it is doing and completes. */
export const endSignal = defineSignal('end');
export const lockUpdate = defineUpdate<PinLock, [LockInput]>('lock');
export const unlockUpdate = defineUpdate<UnlockResult, [UnlockInput]>('unlock');
/** No payload: the twin reloads its rules from Redis (`device:{id}:rules`, `rule:{id}`). */
export const rulesChangedUpdate = defineUpdate<RulesChangedResult, []>('rulesChanged');
export const stateQuery = defineQuery<TwinView>('state');

/** I/O that must happen eventually (mirror, notifications, check-backs): retried until it does. */
const durableOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

/** I/O a caller waits for (Updates, command publishes): a few quick tries, then an answer. */
const answeringOptions = {
  startToCloseTimeout: '5 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 3 },
} as const;

/**
 * The twin's steps: each a Redis read or write of a few milliseconds. Runs started after
 * LOCAL_STEPS_PATCH run them as local activities, inside the workflow task that decided them;
 * runs before it as activities of the task queue.
 */
interface TwinSteps {
  durable: TwinActivities;
  answering: TwinActivities;
}

const queuedSteps: TwinSteps = {
  durable: proxyActivities<TwinActivities>(durableOptions),
  answering: proxyActivities<TwinActivities>(answeringOptions),
};

const localSteps: TwinSteps = {
  durable: proxyLocalActivities<TwinActivities>({ ...durableOptions, localRetryThreshold: LOCAL_RETRY_THRESHOLD }),
  answering: proxyLocalActivities<TwinActivities>({ ...answeringOptions, localRetryThreshold: LOCAL_RETRY_THRESHOLD }),
};

/**
 * The liveness watch (awaitSilence): retried for as long as the device is heard from, each retry
 * delayed by the activity itself until the next heartbeat deadline, so it never gives up; a Redis
 * that is down is retried with this policy's backoff.
 */
const watching = proxyActivities<TwinActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Runs started before this patch time the heartbeat with a timer and a readLastSeen activity
 * (2 Temporal actions per heartbeat period); runs after it with the liveness watch (1).
 */
export const HEARTBEAT_WATCH_PATCH = 'twin-heartbeat-watch';

/**
 * Runs started after this patch run their steps (mirror writes and reads, rule loads, lock writes,
 * command flushes) as local activities (docs/architecture.md, "The twin's steps run in its
 * workflow task"); runs before it as activities of the task queue. The liveness watch stays an
 * activity of the task queue: its retries are the heartbeat timer.
 */
export const LOCAL_STEPS_PATCH = 'twin-local-steps';

/** Workflow time: deterministic inside the sandbox. */
const nowMs = (): number => new Date().getTime();

export async function deviceTwin(input: TwinInput): Promise<TwinEnd> {
  const cfg: TwinConfig = { deviceId: input.deviceId, projectId: input.projectId, heartbeatTimeoutS: input.heartbeatTimeoutS };
  const { deviceId, projectId } = cfg;
  let s: TwinState = twin.resumeState(input.state);
  const watched = patched(HEARTBEAT_WATCH_PATCH);
  const { durable, answering } = patched(LOCAL_STEPS_PATCH) ? localSteps : queuedSteps;

  /** Every step that does I/O runs here, one at a time, so mirror writes never overtake each other. */
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(step: () => Promise<T>): Promise<T> {
    const run = chain.then(step);
    chain = run.catch(() => undefined);
    return run;
  }

  async function notify(effect: Extract<TwinEffect, { kind: 'notify' }>): Promise<void> {
    const record: NotificationRecord = {
      // uuid4() is seeded by the workflow: replay-stable, and the activity's retries reuse the input.
      id: uuid4(),
      projectId,
      deviceId,
      ruleId: effect.rule.id,
      type: effect.type,
      title: effect.title,
      message: effect.message,
      priority: effect.priority,
      channels: effect.rule.channels,
      read: false,
      createdAt: twin.isoOf(nowMs()),
    };
    // A child the twin does not wait for (and that outlives it), so a slow channel never holds up
    // the twin's next step; its id comes from the record's, so a replayed start is the same child.
    await startChild(deliverNotification, { args: [record], workflowId: notificationWorkflowId(record.id), parentClosePolicy: 'ABANDON' });
    s = twin.notified(s);
  }

  async function run(effect: TwinEffect): Promise<void> {
    switch (effect.kind) {
      case 'writeStatus': {
        const at = s.statusChangedAt ?? twin.isoOf(nowMs());
        const result = await durable.writeStatus({
          deviceId,
          status: s.status,
          statusChangedAt: at,
          lastSeen: s.lastSeen,
          disconnectReason: s.disconnectReason,
          ...(effect.firstStatus ? { firstStatus: true } : {}),
        });
        s = twin.statusWritten(s, result.lastSeen, nowMs());
        return;
      }
      case 'notify':
        return notify(effect);
      case 'flushCommands':
        // What the broker did not take stays kept for the next check-back.
        try {
          const { delivered } = await answering.flushPendingCommands({ deviceId });
          s = twin.commandsFlushed(s, delivered);
        } catch (err) {
          log.warn('kept commands not delivered yet', { deviceId, error: String(err) });
        }
        return;
      case 'writeInfo':
        await durable.writeInfo({ deviceId, ...effect.changes });
        return;
      case 'raiseAlarm':
        await durable.raiseAlarm({ deviceId, projectId, edge: effect.edge });
        return;
      case 'clearAlarm':
        await durable.clearAlarm({ deviceId, edge: effect.edge });
        return;
    }
  }

  async function apply(decision: twin.Decision): Promise<void> {
    s = decision.state;
    for (const effect of decision.effects) await run(effect);
  }

  /** Queues what a message asks for; synchronous when there is nothing to queue (the most frequent case). */
  function take(received: twin.Received): Promise<void> | undefined {
    s = received.state;
    if (received.warning) log.warn(received.warning, { deviceId });
    const step: twin.TwinStep | null = received.step;
    return step ? exclusive(() => apply(twin.decideStep(s, step, watched))) : undefined;
  }

  async function start(): Promise<void> {
    if (s.bootstrapped) {
      // A run after continue-as-new refreshes its rules (a lost rulesChanged heals here).
      const result = await durable.loadTwinRules({ deviceId });
      if (result.exists) s = twin.withRules(s, result.rules, nowMs());
      return;
    }
    const boot = await durable.bootstrapTwin({ deviceId });
    await apply(twin.bootstrapped(s, boot, nowMs()));
  }

  /** A timer fired: read what the gateway recorded, then re-arm or act. */
  async function checkBack(): Promise<void> {
    const plan: twin.CheckBackPlan | null = twin.planCheckBack(s, cfg, nowMs(), watched);
    if (!plan) return;
    const seen = await durable.readLastSeen(
      plan.alarmRuleIds.length > 0 ? { deviceId, pins: plan.pins, alarms: plan.alarmRuleIds } : { deviceId, pins: plan.pins },
    );
    await apply(twin.checkedBack(s, cfg, plan, seen, nowMs()));
  }

  /** The running liveness watch, and whether its result is being applied (continue-as-new waits for that). */
  let watch: Promise<void> | null = null;
  let watchApplying = false;
  const watchDue = (): boolean => watched && watch === null && twin.watchWanted(s);
  function startWatch(): void {
    const since = s.lastSeen ?? s.statusChangedAt ?? twin.isoOf(nowMs());
    watch = watching
      .awaitSilence({ deviceId, heartbeatTimeoutS: cfg.heartbeatTimeoutS, since })
      .then((seen) => {
        watchApplying = true;
        return exclusive(() => apply(twin.watchEnded(s, cfg, seen, nowMs())));
      })
      .catch((err: unknown) => log.warn('liveness watch failed; a new one starts', { deviceId, error: String(err) }))
      .finally(() => {
        watch = null;
        watchApplying = false;
      });
  }

  const rejectBadLockRequest = (req: UnlockInput): void => {
    const problem = twin.lockRequestProblem(s, req);
    if (problem) throw ApplicationFailure.nonRetryable(problem.message, problem.code);
  };

  // Queued before any handler exists, so every message is applied to the loaded state.
  const starting = exclusive(start);

  setHandler(stateQuery, () => twin.viewOf(s, cfg));
  setHandler(endSignal, () => {
    s = twin.endRequested(s);
  });
  setHandler(activitySignal, (a) => take(twin.receiveActivity(s, a, nowMs())));
  setHandler(statusSignal, async (sig) => take(twin.receiveStatus(s, sig, nowMs())));
  setHandler(infoSignal, async (info) => take(twin.receiveInfo(s, info, nowMs())));
  setHandler(alarmEdgeSignal, async (edge) => take(twin.receiveAlarmEdge(s, edge, nowMs())));

  setHandler(
    lockUpdate,
    (req) =>
      exclusive(async () => {
        s = twin.receiveUpdate(s, nowMs());
        const lock = twin.lockFor(s, req, nowMs());
        await answering.writeLock({ deviceId, lock }); // also heals a mirror that lost the lock, and drops kept commands
        s = twin.locked(s, lock);
        return lock;
      }),
    { validator: rejectBadLockRequest },
  );

  setHandler(
    unlockUpdate,
    (req) =>
      exclusive(async () => {
        s = twin.receiveUpdate(s, nowMs());
        const pin = twin.lockToRelease(s, req);
        if (pin === null) return { released: false };
        await answering.deleteLock({ deviceId, pin });
        s = twin.unlocked(s, pin);
        return { released: true };
      }),
    { validator: rejectBadLockRequest },
  );

  setHandler(
    rulesChangedUpdate,
    () =>
      exclusive(async () => {
        s = twin.receiveUpdate(s, nowMs());
        const result = await answering.loadTwinRules({ deviceId });
        s = twin.withRules(s, result.rules, nowMs());
        return { rules: s.rules };
      }),
    {
      validator: () => {
        if (s.ending !== null) throw ApplicationFailure.nonRetryable('the twin is ending', 'DEVICE_NOT_FOUND');
      },
    },
  );

  // ---- Main loop: sleep until the next check-back, or until something moves it earlier -------

  const dueToContinue = (): boolean => twin.continueAsNewDue(s, workflowInfo());
  await starting;
  while (s.ending === null) {
    if (watchDue()) startWatch();
    const t = nowMs();
    const deadline = twin.nextDeadline(s, cfg, t, watched);
    if (deadline !== null && deadline <= t) {
      await exclusive(checkBack);
      continue;
    }
    let wakeAt = deadline;
    const continuing = dueToContinue();
    if (continuing) {
      if (s.run.messages >= twin.RUN_MESSAGE_HARD_LIMIT || t - s.run.lastMessageAt >= twin.CONTINUE_AS_NEW_LULL_MS) break;
      const lullAt = s.run.lastMessageAt + twin.CONTINUE_AS_NEW_LULL_MS;
      wakeAt = wakeAt === null ? lullAt : Math.min(wakeAt, lullAt);
    }
    const wake = (): boolean => {
      if (s.ending !== null || s.run.messages >= twin.RUN_MESSAGE_HARD_LIMIT || watchDue()) return true;
      if (!continuing && dueToContinue()) return true;
      const next = twin.nextDeadline(s, cfg, nowMs(), watched);
      return next !== null && (wakeAt === null || next < wakeAt);
    };
    if (wakeAt === null) await condition(wake);
    else await condition(wake, Math.max(1, wakeAt - t));
  }

  // Let running handlers (and the I/O they queued) finish before the run ends.
  if (s.ending === null) {
    await condition(() => (allHandlersFinished() && !watchApplying) || s.ending !== null);
    if (s.ending === null) await continueAsNew<typeof deviceTwin>({ ...cfg, state: twin.carryOver(s) });
  }
  await condition(allHandlersFinished, '1 minute');
  return { deviceId, reason: s.ending ?? 'ended', endedAt: twin.isoOf(nowMs()) };
}
