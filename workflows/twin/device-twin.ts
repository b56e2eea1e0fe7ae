/**
 * The device twin (DESIGN §1, §5, §6, §8): one long-running workflow per device, id
 * `device-twin:{deviceId}`, type `deviceTwin`. This file is the shell: it registers the handlers
 * of its messages (definitions.ts), asks the pure reducers beside it what they mean, runs the
 * effects they return through activities and child workflows one at a time, waits until the next
 * move (schedule.ts), and continues-as-new. Every decision lives in the reducers; all run state
 * lives in its one state object (state.ts).
 *
 * Workflow code: no Node imports, activities imported as types only. A change here must replay
 * the committed histories (test/twin/replay.test.ts, docs/workflow-versioning.md).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  patched,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { NotificationRecord } from '../../common/contracts';
import { notificationWorkflowId } from '../../common/contracts';
import { isoOf } from '../../common/iso-time';
import type { TwinEnd, UnlockInput } from '../../common/twin-contracts';
import { deliverNotification } from '../notification-delivery';
import { stepsOf, watching } from './activity-proxies';
import { receiveAlarmEdge } from './alarms';
import { checkedBack, planCheckBack, watchEnded } from './check-back';
import { commandsFlushed } from './commands';
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
} from './definitions';
import type { Decision, Received, TwinEffect } from './effects';
import { receiveInfo } from './info';
import { bootstrapped, endRequested } from './lifecycle';
import { heartbeatOf, receiveActivity, receiveStatus, statusWritten, watchOutdated, watchWanted } from './liveness';
import { lockRequested, lockRequestProblem, locked, unlockRequested, unlocked } from './locks';
import { nextMove, waitOver } from './schedule';
import { rulesStale, withRuleSet } from './rule-set';
import { carryOver, counted, notified, resumeState, type TwinState } from './state';
import { statusRulesApplied } from './status-rules';
import { decideStep } from './steps';
import { viewOf } from './view';
import { type RunConfig, twinVersion } from './version';

export type { TwinInput } from './definitions';

/** Workflow time: deterministic inside the sandbox. */
const nowMs = (): number => Date.now();

export async function deviceTwin(input: TwinInput): Promise<TwinEnd> {
  const { deviceId, projectId, heartbeatTimeoutS } = input;
  let s: TwinState = resumeState(input.state);
  const cfg: RunConfig = { deviceId, projectId, heartbeatTimeoutS, version: twinVersion(patched) };
  const { durable, answering } = stepsOf(cfg.version);

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
      createdAt: isoOf(nowMs()),
    };
    // A child the twin does not wait for (and that outlives it), so a slow channel never holds up
    // the twin's next step; its id comes from the record's, so a replayed start is the same child.
    await startChild(deliverNotification, { args: [record], workflowId: notificationWorkflowId(record.id), parentClosePolicy: 'ABANDON' });
    s = notified(s);
  }

  /** A read found the project's rules version moved past the twin's: the rules that cover it are loaded again (rule-set.ts). */
  async function refreshRules(version: string | undefined): Promise<void> {
    if (!rulesStale(s, version)) return;
    const result = await durable.loadTwinRules({ deviceId });
    if (result.exists) ruleSetLoaded(result);
  }

  /** A loaded rule set in the state; a heartbeat it shortened starts the liveness watch again (liveness.ts). */
  function ruleSetLoaded(set: Parameters<typeof withRuleSet>[1]): void {
    s = withRuleSet(s, set, nowMs());
    if (watchScope === null || watchApplying || !watchOutdated(s, cfg, watchedAtS)) return;
    watchScope.cancel();
    if (!cfg.version.rewatchAtOnce) return;
    watch = null;
    watchScope = null;
    if (watchDue()) startWatch();
  }

  /** Runs one effect, then folds what it returned into the state. */
  async function run(effect: TwinEffect): Promise<void> {
    switch (effect.kind) {
      case 'writeStatus': {
        const at = s.statusChangedAt ?? isoOf(nowMs());
        const result = await durable.writeStatus({
          deviceId,
          projectId,
          status: s.status,
          statusChangedAt: at,
          lastSeen: s.lastSeen,
          disconnectReason: s.disconnectReason,
          ...(effect.firstStatus ? { firstStatus: true } : {}),
        });
        s = statusWritten(s, result.lastSeen, nowMs());
        await refreshRules(result.rulesVersion);
        return;
      }
      case 'statusRules':
        return apply(statusRulesApplied(s, effect.status, effect.at));
      case 'notify':
        return notify(effect);
      case 'flushCommands':
        // What the broker did not take stays kept for the next check-back.
        try {
          const { delivered } = await answering.flushPendingCommands({ deviceId });
          s = commandsFlushed(s, delivered);
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
      case 'writeLock':
        await answering.writeLock({ deviceId, lock: effect.lock }); // also heals a mirror that lost the lock, and drops kept commands
        s = locked(s, effect.lock);
        return;
      case 'deleteLock':
        await answering.deleteLock({ deviceId, pin: effect.pin });
        s = unlocked(s, effect.pin);
        return;
    }
  }

  async function apply(decision: Decision): Promise<void> {
    s = decision.state;
    for (const effect of decision.effects) await run(effect);
  }

  /** Queues what a message asks for; synchronous when there is nothing to queue (the most frequent case). */
  function take(received: Received): Promise<void> | undefined {
    s = received.state;
    if (received.warning) log.warn(received.warning, { deviceId });
    const { step } = received;
    return step ? exclusive(() => apply(decideStep(s, cfg, step))) : undefined;
  }

  async function start(): Promise<void> {
    if (s.bootstrapped) {
      // A run after continue-as-new refreshes its rules (a lost rulesChanged heals here).
      const result = await durable.loadTwinRules({ deviceId });
      if (result.exists) s = withRuleSet(s, result, nowMs());
      return;
    }
    const boot = await durable.bootstrapTwin({ deviceId });
    await apply(bootstrapped(s, boot, nowMs()));
  }

  /** A timer fired: read what the gateway recorded, then re-arm or act. */
  async function checkBack(): Promise<void> {
    const plan = planCheckBack(s, cfg, nowMs());
    if (!plan) return;
    const seen = await durable.readLastSeen(
      plan.alarmRuleIds.length > 0
        ? { deviceId, projectId, pins: plan.pins, alarms: plan.alarmRuleIds }
        : { deviceId, projectId, pins: plan.pins },
    );
    await refreshRules(seen.rulesVersion);
    await apply(checkedBack(s, cfg, plan, seen, nowMs()));
  }

  /**
   * The running liveness watch, whether its result is being applied (continue-as-new waits for
   * that), its scope (cancelled when the heartbeat shortens) and the heartbeat it started at.
   */
  let watch: Promise<void> | null = null;
  let watchApplying = false;
  let watchScope: CancellationScope | null = null;
  let watchedAtS = 0;
  const watchDue = (): boolean => cfg.version.heartbeatWatch && watch === null && watchWanted(s);
  function startWatch(): void {
    const since = s.lastSeen ?? s.statusChangedAt ?? isoOf(nowMs());
    const scope = new CancellationScope();
    watchScope = scope;
    watchedAtS = heartbeatOf(s, cfg);
    watch = scope
      .run(() => watching.awaitSilence({ deviceId, projectId, heartbeatTimeoutS, since }))
      .then((seen) => {
        watchApplying = true;
        return exclusive(async () => {
          await refreshRules(seen.rulesVersion);
          await apply(watchEnded(s, cfg, seen, nowMs()));
        });
      })
      .catch((err: unknown) => {
        if (!isCancellation(err)) log.warn('liveness watch failed; a new one starts', { deviceId, error: String(err) });
      })
      .finally(() => {
        // A watch cancelled as outdated may end after the next one started (rewatchAtOnce).
        if (watchScope !== scope) return;
        watch = null;
        watchScope = null;
        watchApplying = false;
      });
  }

  const rejectBadLockRequest = (req: UnlockInput): void => {
    const problem = lockRequestProblem(s, req);
    if (problem) throw ApplicationFailure.nonRetryable(problem.message, problem.code);
  };

  // Queued before any handler exists, so every message is applied to the loaded state.
  const starting = exclusive(start);

  setHandler(stateQuery, () => viewOf(s, cfg));
  setHandler(endSignal, () => {
    s = endRequested(s);
  });
  setHandler(activitySignal, (a) => take(receiveActivity(s, a, nowMs())));
  setHandler(statusSignal, async (sig) => take(receiveStatus(s, sig, nowMs())));
  setHandler(infoSignal, async (info) => take(receiveInfo(s, info, nowMs())));
  setHandler(alarmEdgeSignal, async (edge) => take(receiveAlarmEdge(s, edge, nowMs())));

  setHandler(
    lockUpdate,
    (req) =>
      exclusive(async () => {
        const decision = lockRequested(s, req, nowMs());
        await apply(decision);
        return decision.answer;
      }),
    { validator: rejectBadLockRequest },
  );

  setHandler(
    unlockUpdate,
    (req) =>
      exclusive(async () => {
        const decision = unlockRequested(s, req, nowMs());
        await apply(decision);
        return decision.answer;
      }),
    { validator: rejectBadLockRequest },
  );

  setHandler(
    rulesChangedUpdate,
    () =>
      exclusive(async () => {
        s = counted(s, 'updates', nowMs());
        ruleSetLoaded(await answering.loadTwinRules({ deviceId }));
        return { rules: s.rules };
      }),
    {
      validator: () => {
        if (s.ending !== null) throw ApplicationFailure.nonRetryable('the twin is ending', 'DEVICE_NOT_FOUND');
      },
    },
  );

  // ---- Main loop: check back when a deadline comes, hand over when due, else wait -------------

  await starting;
  while (s.ending === null) {
    if (watchDue()) startWatch();
    const t = nowMs();
    const move = nextMove(s, cfg, workflowInfo(), t);
    if (move.kind === 'check-back') {
      await exclusive(checkBack);
      continue;
    }
    if (move.kind === 'continue-as-new') break;
    const wake = (): boolean => watchDue() || waitOver(s, cfg, move, workflowInfo(), nowMs());
    if (move.until === null) await condition(wake);
    else await condition(wake, Math.max(1, move.until - t));
  }

  // Let running handlers (and the I/O they queued) finish before the run ends.
  if (s.ending === null) {
    await condition(() => (allHandlersFinished() && !watchApplying) || s.ending !== null);
    if (s.ending === null) await continueAsNew<typeof deviceTwin>({ deviceId, projectId, heartbeatTimeoutS, state: carryOver(s) });
  }
  await condition(allHandlersFinished, '1 minute');
  return { deviceId, reason: s.ending ?? 'ended', endedAt: isoOf(nowMs()) };
}
