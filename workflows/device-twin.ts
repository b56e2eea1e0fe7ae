/**
 * The device twin (DESIGN §1, §5, §6, §8): one long-running workflow per device, id
 * `device-twin:{deviceId}`. It holds online/offline with a heartbeat timeout, pin locks, the
 * no-data timers of the device's no_data rules, its status rules and the commands kept for it
 * while it is offline. Its timers check back: when one fires, an activity reads the last-seen
 * times the gateway wrote to Redis, and the twin re-arms if data came since, or acts if not.
 * Temporal load therefore grows with devices and state changes, not with messages.
 *
 * Workflow code: no Node imports, activities imported as types only.
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
  proxyActivities,
  setHandler,
  startChild,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { TwinActivities } from '../activities';
import type { LastSeenResult, TwinRule } from '../activities/types';
import type {
  DeviceStatus,
  NotificationPriority,
  NotificationRecord,
  NotificationType,
  PinLock,
} from '../common/contracts';
import { notificationWorkflowId } from '../common/contracts';
import { parsePin } from '../common/pins';
import { deliverNotification } from './notification-delivery';

// ---- Messages --------------------------------------------------------------------------------

/** The gateway saw a message from a device the mirror shows offline (deduplicated). */
export interface ActivityInput {
  /** When the message arrived (ISO 8601). */
  at: string;
  /** The pin it was for, if any. */
  pin?: string;
}

/** The device's status topic or its Last Will. */
export interface StatusInput {
  status: DeviceStatus;
  at: string;
}

/** The device's info topic. Absent fields stay as they were; `at`, when given, also counts as activity. */
export interface InfoInput {
  ipAddress?: string;
  firmwareVersion?: string;
  hardwareType?: string;
  at?: string;
}

export interface LockInput {
  pin: string;
  widgetId: string | null;
}

export interface UnlockInput {
  pin: string;
  /** When given, only a lock held by this widget is released; when absent or null, any lock is. */
  widgetId?: string | null;
}

export interface UnlockResult {
  released: boolean;
}

export interface RulesChangedResult {
  /** The rules the twin watches after the reload (enabled no_data, offline and online rules). */
  rules: TwinRule[];
}

export const activitySignal = defineSignal<[ActivityInput]>('activity');
export const statusSignal = defineSignal<[StatusInput]>('status');
export const infoSignal = defineSignal<[InfoInput]>('info');
/** The device was deleted: the twin finishes what it is doing and completes. */
export const endSignal = defineSignal('end');
export const lockUpdate = defineUpdate<PinLock, [LockInput]>('lock');
export const unlockUpdate = defineUpdate<UnlockResult, [UnlockInput]>('unlock');
/** No payload: the twin reloads its rules from Redis (`device:{id}:rules`, `rule:{id}`). */
export const rulesChangedUpdate = defineUpdate<RulesChangedResult, []>('rulesChanged');
export const stateQuery = defineQuery<TwinView>('state');

// ---- State -----------------------------------------------------------------------------------

export interface NoDataTimer {
  pin: string | null;
  durationS: number;
  /** Silence is counted from the later of this and the pin's last data (the rule's start). */
  armedAt: number;
  /** Set while the rule has fired for the current silence: the reference time the silence began. */
  silenceSince: number | null;
  /** Next check-back (epoch ms). */
  checkAt: number;
}


export interface TwinState {
  bootstrapped: boolean;
  status: DeviceStatus;
  lastSeen: string | null;
  statusChangedAt: string | null;
  /** Epoch ms of the last online→offline change: activity from before it does not bring the device back. */
  offlineSince: number | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  locks: Record<string, PinLock>;
  /** Last activity per pin, as far as the twin learnt it (signals and check-backs). */
  pinActivity: Record<string, string>;
  rules: TwinRule[];
  /** By rule id. */
  noData: Record<string, NoDataTimer>;
  /** Epoch ms of the last status mirror write. */
  mirroredAt: number;
  /** Epoch ms since when `device:{id}` has been missing, or null. */
  missingSince: number | null;
  stats: { signals: number; updates: number; notifications: number; commandsDelivered: number; runs: number };
}

export interface TwinInput {
  deviceId: string;
  projectId: string;
  heartbeatTimeoutS: number;
  /** Carried by continue-as-new. */
  state?: TwinState;
}

/** The `state` query's answer. */
export interface TwinView {
  deviceId: string;
  projectId: string;
  heartbeatTimeoutS: number;
  status: DeviceStatus;
  lastSeen: string | null;
  statusChangedAt: string | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  locks: PinLock[];
  pinActivity: Record<string, string>;
  rules: TwinRule[];
  noData: Array<{ ruleId: string; pin: string | null; durationS: number; fired: boolean; checkAt: string }>;
  stats: TwinState['stats'];
  ending: boolean;
}

export interface TwinEnd {
  deviceId: string;
  reason: 'ended' | 'device-missing';
  endedAt: string;
}

/** Continue-as-new at this history length even if Temporal has not suggested it yet. */
export const HISTORY_EVENT_BUDGET = 10_000;
/** ...or after this many messages (signals and Updates) in one run: short runs replay fast. */
export const RUN_MESSAGE_BUDGET = 2_000;
/**
 * Continue-as-new fails when a message lands while it is being committed (the server makes the
 * run take the message first, from a full replay). So once due, it waits for a lull of this long
 * without messages, unless the run nears Temporal's refusal of signals (10,000 per run).
 */
const CONTINUE_AS_NEW_LULL_MS = 300;
const RUN_MESSAGE_HARD_LIMIT = 4_000;
/** A device hash missing this many heartbeat timeouts (at least 5 s) ends the twin: its delete's `end` was lost. */
const ORPHAN_GRACE_HEARTBEATS = 2;
const ORPHAN_GRACE_MIN_MS = 5_000;
/** An activity signal while the twin already thinks online means the mirror disagrees: rewrite it, at most this often. */
const MIRROR_HEAL_INTERVAL_MS = 10_000;
const MAX_INFO_LENGTH = 256;

// ---- Activities ------------------------------------------------------------------------------

/** I/O that must happen eventually (mirror, notifications, check-backs): retried until it does. */
const durable = proxyActivities<TwinActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** I/O a caller waits for (Updates, command publishes): a few quick tries, then an answer. */
const answering = proxyActivities<TwinActivities>({
  startToCloseTimeout: '5 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumInterval: '2 seconds', maximumAttempts: 3 },
});

// ---- Helpers ---------------------------------------------------------------------------------

/** Workflow time: deterministic inside the sandbox. */
const nowMs = (): number => new Date().getTime();
const isoOf = (ms: number): string => new Date(ms).toISOString();
const msOf = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};
const isTime = (v: unknown): v is string => typeof v === 'string' && msOf(v) !== null;
/** The later of two ISO times (a null or unparsable one loses). */
const later = (a: string | null, b: string | null): string | null => {
  const am = msOf(a);
  const bm = msOf(b);
  if (bm === null) return am === null ? null : a;
  if (am === null) return b;
  return bm > am ? b : a;
};

function canonicalPin(pin: unknown): string {
  const parsed = typeof pin === 'string' ? parsePin(pin) : null;
  if (!parsed) throw ApplicationFailure.nonRetryable(`invalid pin: ${String(pin)}`, 'INVALID_PIN');
  return parsed.name;
}

function freshState(): TwinState {
  return {
    bootstrapped: false,
    status: 'offline',
    lastSeen: null,
    statusChangedAt: null,
    offlineSince: null,
    ipAddress: null,
    firmwareVersion: null,
    hardwareType: null,
    locks: {},
    pinActivity: {},
    rules: [],
    noData: {},
    mirroredAt: 0,
    missingSince: null,
    stats: { signals: 0, updates: 0, notifications: 0, commandsDelivered: 0, runs: 1 },
  };
}

// ---- The workflow ----------------------------------------------------------------------------

export async function deviceTwin(input: TwinInput): Promise<TwinEnd> {
  const { deviceId, projectId, heartbeatTimeoutS } = input;
  const timeoutMs = heartbeatTimeoutS * 1000;
  const orphanGraceMs = Math.max(ORPHAN_GRACE_HEARTBEATS * timeoutMs, ORPHAN_GRACE_MIN_MS);
  const s: TwinState = input.state ?? freshState();
  let ending: TwinEnd['reason'] | null = null;
  /** Signals and Updates received by this run (not carried: the budget is per run), and when the last came. */
  let runMessages = 0;
  let lastMessageAt = 0;
  const received = (): void => {
    runMessages += 1;
    lastMessageAt = nowMs();
  };

  /** Every step that does I/O runs here, one at a time, so mirror writes never overtake each other. */
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(step: () => Promise<T>): Promise<T> {
    const run = chain.then(step);
    chain = run.catch(() => undefined);
    return run;
  }

  function applyRules(rules: TwinRule[], t: number): void {
    s.rules = rules;
    const timers: Record<string, NoDataTimer> = {};
    for (const rule of rules) {
      if (rule.condition !== 'no_data' || rule.duration === null) continue;
      const old = s.noData[rule.id];
      timers[rule.id] =
        old && old.pin === rule.pin && old.durationS === rule.duration
          ? old
          : { pin: rule.pin, durationS: rule.duration, armedAt: t, silenceSince: null, checkAt: t + rule.duration * 1000 };
    }
    s.noData = timers;
  }

  async function writeStatusMirror(): Promise<void> {
    const result = await durable.writeStatus({
      deviceId,
      projectId,
      status: s.status,
      statusChangedAt: s.statusChangedAt ?? isoOf(nowMs()),
      lastSeen: s.lastSeen,
    });
    s.mirroredAt = nowMs();
    if (result.lastSeen) s.lastSeen = later(s.lastSeen, result.lastSeen);
  }

  async function notify(
    rule: TwinRule,
    type: NotificationType,
    title: string,
    message: string,
    priority: NotificationPriority,
  ): Promise<void> {
    const record: NotificationRecord = {
      // uuid4() is seeded by the workflow: replay-stable, and the activity's retries reuse the input.
      id: uuid4(),
      projectId,
      deviceId,
      ruleId: rule.id,
      type,
      title,
      message,
      priority,
      channels: rule.channels,
      read: false,
      createdAt: isoOf(nowMs()),
    };
    // The one place the twin's notifications go out: the delivery workflow stores the record,
    // emits it in-app and runs email/push each on its own retries. A child the twin does not
    // wait for (and that outlives it), so a slow channel never holds up the twin's next step;
    // its id comes from the record's, so a replayed start is the same child.
    await startChild(deliverNotification, {
      args: [record],
      workflowId: notificationWorkflowId(record.id),
      parentClosePolicy: 'ABANDON',
    });
    s.stats.notifications += 1;
  }

  /**
   * Delivers the commands the gateway kept in Redis while the device was not online (newest value
   * per pin); what the broker did not take stays kept for the next check-back.
   */
  async function flushPending(): Promise<void> {
    try {
      const { delivered } = await answering.flushPendingCommands({ deviceId });
      s.stats.commandsDelivered += delivered;
    } catch (err) {
      log.warn('kept commands not delivered yet', { deviceId, error: String(err) });
    }
  }

  async function transition(status: DeviceStatus, at: string): Promise<void> {
    if (s.status === status) return;
    s.status = status;
    s.statusChangedAt = at;
    if (status === 'online') s.lastSeen = later(s.lastSeen, at);
    else s.offlineSince = msOf(at);
    await writeStatusMirror();
    for (const rule of s.rules) {
      if (rule.condition !== status) continue;
      const message = rule.message ? rule.message.replaceAll('{value}', status) : `Device is ${status}`;
      await notify(rule, 'device_status', `Device ${status}`, message, status === 'offline' ? 'high' : 'normal');
    }
    if (status === 'online') await flushPending();
  }

  /** Activity at `at` brings an offline device online, unless it predates the device going offline. */
  async function activityAt(at: string): Promise<void> {
    if (s.status === 'online') return;
    const atMs = msOf(at);
    if (atMs === null || (s.offlineSince !== null && atMs <= s.offlineSince)) return;
    await transition('online', at);
  }

  async function bootstrap(): Promise<void> {
    const boot = await durable.bootstrapTwin({ deviceId });
    const t = nowMs();
    s.bootstrapped = true;
    if (!boot.exists) s.missingSince = t;
    const m = boot.mirror;
    s.status = m.status ?? 'offline';
    s.statusChangedAt = m.statusChangedAt;
    s.lastSeen = later(s.lastSeen, m.lastSeen);
    if (s.status === 'online' && s.lastSeen === null) s.lastSeen = m.statusChangedAt ?? isoOf(t);
    if (s.status === 'offline') s.offlineSince = msOf(m.statusChangedAt);
    s.ipAddress = m.ipAddress;
    s.firmwareVersion = m.firmwareVersion;
    s.hardwareType = m.hardwareType;
    s.locks = Object.fromEntries(boot.locks.map((l) => [l.pin, l]));
    applyRules(boot.rules, t);
    if (boot.exists && m.status === null) {
      s.statusChangedAt = isoOf(t);
      await writeStatusMirror();
    }
  }

  /** A run after continue-as-new refreshes its rules (a lost rulesChanged heals here). */
  async function refreshRules(): Promise<void> {
    const result = await durable.loadTwinRules({ deviceId });
    if (result.exists) applyRules(result.rules, nowMs());
  }

  function heartbeatDeadline(): number | null {
    if (s.status !== 'online') return null;
    return (msOf(s.lastSeen) ?? msOf(s.statusChangedAt) ?? nowMs()) + timeoutMs;
  }

  function nextDeadline(): number | null {
    if (s.missingSince !== null) return s.missingSince + orphanGraceMs;
    let next = heartbeatDeadline();
    for (const timer of Object.values(s.noData)) {
      if (next === null || timer.checkAt < next) next = timer.checkAt;
    }
    return next;
  }

  function evaluateNoData(ruleId: string, timer: NoDataTimer, lastData: number | null, t: number): TwinRule | null {
    const durationMs = timer.durationS * 1000;
    // Data came after the silence began: the rule re-arms.
    if (timer.silenceSince !== null && lastData !== null && lastData > timer.silenceSince) timer.silenceSince = null;
    if (timer.silenceSince !== null) {
      timer.checkAt = t + durationMs; // still silent: look again later
      return null;
    }
    const since = Math.max(lastData ?? Number.NEGATIVE_INFINITY, timer.armedAt);
    if (t - since >= durationMs) {
      timer.silenceSince = since;
      timer.checkAt = t + durationMs;
      return s.rules.find((r) => r.id === ruleId) ?? null;
    }
    timer.checkAt = since + durationMs;
    return null;
  }

  /** A timer fired: read what the gateway recorded, then re-arm or act. */
  async function checkBack(): Promise<void> {
    const t0 = nowMs();
    const heartbeatDue = (heartbeatDeadline() ?? Infinity) <= t0;
    const due = Object.entries(s.noData).filter(([, timer]) => timer.checkAt <= t0);
    const orphanDue = s.missingSince !== null && s.missingSince + orphanGraceMs <= t0;
    if (!heartbeatDue && due.length === 0 && !orphanDue) return;

    const pins = [...new Set(due.flatMap(([, timer]) => (timer.pin ? [timer.pin] : [])))];
    const seen: LastSeenResult = await durable.readLastSeen({ deviceId, pins });
    const t = nowMs();
    if (!seen.exists) {
      if (s.missingSince === null) s.missingSince = t;
      else if (t - s.missingSince >= orphanGraceMs) ending = 'device-missing';
      return;
    }
    s.missingSince = null;
    s.lastSeen = later(s.lastSeen, seen.lastSeen);
    for (const [pin, data] of Object.entries(seen.pins)) {
      if (data) s.pinActivity[pin] = later(s.pinActivity[pin] ?? null, data.updatedAt) ?? data.updatedAt;
    }

    if (s.status === 'online') {
      const lastSeen = msOf(s.lastSeen) ?? t0;
      if (t - lastSeen >= timeoutMs) await transition('offline', isoOf(t));
      else if (seen.pendingCommands > 0) await flushPending();
    }

    for (const [ruleId, timer] of due) {
      const data = timer.pin ? seen.pins[timer.pin] : null;
      const lastData = timer.pin ? msOf(data?.updatedAt) : msOf(seen.lastSeen);
      const rule = evaluateNoData(ruleId, timer, lastData, t);
      if (!rule) continue;
      const where = rule.pin ?? 'the device';
      const value = rule.pin ? (data?.value ?? 'no value') : 'no value';
      const message = rule.message
        ? rule.message.replaceAll('{value}', value)
        : `No data from ${where} for ${rule.duration} s`;
      await notify(rule, 'no_data', rule.pin ? `No data on ${rule.pin}` : 'No data from device', message, 'high');
    }
  }

  function continueAsNewDue(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength > HISTORY_EVENT_BUDGET || runMessages > RUN_MESSAGE_BUDGET;
  }

  function view(): TwinView {
    return {
      deviceId,
      projectId,
      heartbeatTimeoutS,
      status: s.status,
      lastSeen: s.lastSeen,
      statusChangedAt: s.statusChangedAt,
      ipAddress: s.ipAddress,
      firmwareVersion: s.firmwareVersion,
      hardwareType: s.hardwareType,
      locks: Object.values(s.locks),
      pinActivity: { ...s.pinActivity },
      rules: s.rules,
      noData: Object.entries(s.noData).map(([ruleId, t]) => ({
        ruleId,
        pin: t.pin,
        durationS: t.durationS,
        fired: t.silenceSince !== null,
        checkAt: isoOf(t.checkAt),
      })),
      stats: { ...s.stats },
      ending: ending !== null,
    };
  }

  // Queued before any handler exists, so every message is applied to the loaded state.
  const starting = exclusive(s.bootstrapped ? refreshRules : bootstrap);

  // ---- Handlers ------------------------------------------------------------------------------

  setHandler(stateQuery, view);

  setHandler(endSignal, () => {
    ending ??= 'ended';
  });

  // Synchronous unless there is I/O to do: every promise a workflow creates costs the SDK a stack
  // capture, and this is the twin's most frequent message.
  setHandler(activitySignal, (a): Promise<void> | undefined => {
    s.stats.signals += 1;
    received();
    if (!isTime(a?.at)) {
      log.warn('activity signal without a valid time ignored', { deviceId });
      return undefined;
    }
    s.lastSeen = later(s.lastSeen, a.at);
    const pin = typeof a.pin === 'string' ? parsePin(a.pin) : null;
    if (pin) s.pinActivity[pin.name] = later(s.pinActivity[pin.name] ?? null, a.at) ?? a.at;
    if (s.status === 'offline') return exclusive(() => activityAt(a.at));
    if (s.bootstrapped && nowMs() - s.mirroredAt >= MIRROR_HEAL_INTERVAL_MS) {
      // The gateway signals only when the mirror does not say online: make it say so.
      s.mirroredAt = nowMs();
      return exclusive(writeStatusMirror);
    }
    return undefined;
  });

  setHandler(statusSignal, async (sig) => {
    s.stats.signals += 1;
    received();
    if ((sig?.status !== 'online' && sig?.status !== 'offline') || !isTime(sig.at)) {
      log.warn('status signal with a bad payload ignored', { deviceId });
      return;
    }
    if (sig.status === 'online') {
      s.lastSeen = later(s.lastSeen, sig.at);
      await exclusive(() => activityAt(sig.at));
    } else {
      await exclusive(async () => {
        const statusAt = msOf(s.statusChangedAt);
        if (statusAt !== null && (msOf(sig.at) ?? 0) < statusAt) return; // older than the last change
        await transition('offline', sig.at);
      });
    }
  });

  setHandler(infoSignal, async (info) => {
    s.stats.signals += 1;
    received();
    const changes: { ipAddress?: string; firmwareVersion?: string; hardwareType?: string } = {};
    for (const field of ['ipAddress', 'firmwareVersion', 'hardwareType'] as const) {
      const value: unknown = info?.[field];
      if (typeof value === 'string' && value.length <= MAX_INFO_LENGTH && value !== s[field]) {
        changes[field] = value;
        s[field] = value;
      }
    }
    const at = isTime(info?.at) ? info.at : null;
    if (at) s.lastSeen = later(s.lastSeen, at);
    await exclusive(async () => {
      if (Object.keys(changes).length > 0) await durable.writeInfo({ deviceId, ...changes });
      if (at) await activityAt(at);
    });
  });

  const rejectWhenEnding = (): void => {
    if (ending !== null) throw ApplicationFailure.nonRetryable('the twin is ending', 'DEVICE_NOT_FOUND');
  };

  /** Lock and unlock requests: a valid pin, and a widget id that is a string or absent. */
  const validateLockRequest = (req: { pin: string; widgetId?: string | null }): void => {
    rejectWhenEnding();
    canonicalPin(req?.pin);
    if (req.widgetId !== null && req.widgetId !== undefined && typeof req.widgetId !== 'string') {
      throw ApplicationFailure.nonRetryable('widgetId must be a string or null', 'VALIDATION_ERROR');
    }
  };

  setHandler(
    lockUpdate,
    (req) =>
      exclusive(async () => {
        s.stats.updates += 1;
        received();
        const pin = canonicalPin(req.pin);
        const lock = s.locks[pin] ?? { pin, lockedAt: isoOf(nowMs()), widgetId: req.widgetId ?? null };
        await answering.writeLock({ deviceId, lock }); // also heals a mirror that lost the lock, and drops kept commands
        s.locks[pin] = lock;
        return lock;
      }),
    { validator: validateLockRequest },
  );

  setHandler(
    unlockUpdate,
    (req) =>
      exclusive(async () => {
        s.stats.updates += 1;
        received();
        const pin = canonicalPin(req.pin);
        const lock = s.locks[pin];
        if (!lock) return { released: false };
        if (req.widgetId !== undefined && req.widgetId !== null && lock.widgetId !== req.widgetId) {
          return { released: false };
        }
        await answering.deleteLock({ deviceId, pin });
        delete s.locks[pin];
        return { released: true };
      }),
    { validator: validateLockRequest },
  );

  setHandler(
    rulesChangedUpdate,
    () =>
      exclusive(async () => {
        s.stats.updates += 1;
        received();
        const result = await answering.loadTwinRules({ deviceId });
        applyRules(result.rules, nowMs());
        return { rules: s.rules };
      }),
    { validator: rejectWhenEnding },
  );

  // ---- Main loop: sleep until the next check-back, or until something moves it earlier -------

  await starting;
  while (ending === null) {
    const t = nowMs();
    const deadline = nextDeadline();
    if (deadline !== null && deadline <= t) {
      await exclusive(checkBack);
      continue;
    }
    let wakeAt = deadline;
    const continuing = continueAsNewDue();
    if (continuing) {
      if (runMessages >= RUN_MESSAGE_HARD_LIMIT || t - lastMessageAt >= CONTINUE_AS_NEW_LULL_MS) break;
      const lullAt = lastMessageAt + CONTINUE_AS_NEW_LULL_MS;
      wakeAt = wakeAt === null ? lullAt : Math.min(wakeAt, lullAt);
    }
    const wake = (): boolean => {
      if (ending !== null || runMessages >= RUN_MESSAGE_HARD_LIMIT) return true;
      if (!continuing && continueAsNewDue()) return true;
      const next = nextDeadline();
      return next !== null && (wakeAt === null || next < wakeAt);
    };
    if (wakeAt === null) await condition(wake);
    else await condition(wake, Math.max(1, wakeAt - t));
  }

  // Let running handlers (and the I/O they queued) finish before the run ends.
  if (ending === null) {
    await condition(() => allHandlersFinished() || ending !== null);
    if (ending === null) {
      s.stats.runs += 1;
      await continueAsNew<typeof deviceTwin>({ deviceId, projectId, heartbeatTimeoutS, state: s });
    }
  }
  await condition(allHandlersFinished, '1 minute');
  return { deviceId, reason: ending ?? 'ended', endedAt: isoOf(nowMs()) };
}
