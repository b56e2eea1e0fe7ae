import type { CommandState, NotificationRule } from '../common/contracts';
import type { Redis } from '../common/redis';
import type { CommandChange, CommandStore } from './commands';
import { importPoints, type ImportReading } from './import-points';
import { createPendingCommandStore } from './pending-commands';
import { readDeviceRules, readRuleSubject, readScopedRules } from './rule-records';
import type { RuleSubject } from '../common/rule-scope';
import { createSchedule } from './schedule';
import { storePoint, type Delivery, type StorePointInput, type StorePointResult } from './store-point';

export type { Delivery, ImportReading, StorePointResult };

/** A value for the ingest step: the streams it writes to are the store's to know. */
export type IngestPoint = Omit<StorePointInput, 'historyStream' | 'historyStreamMax' | 'outbox'>;

/** The command an app's write is, as its value's step records it (the step fills in the project). */
export type NewCommand = NonNullable<IngestPoint['command']>;

/** A command a write made, as the store keeps it for a device its publish did not reach. */
export interface UnsentCommand {
  id: string;
  expiresAt: string | null;
}

/**
 * What the ingest pipeline (gateway/ingest/) needs from storage, and nothing more. Refusals are
 * thrown as StoreError (DEVICE_GONE, PIN_LOCKED, DEVICE_RATE, HISTORY_BACKLOG); ingest says what
 * each means to its callers.
 */
export interface IngestStore {
  /** The value's one Redis step (store/store-point.ts). */
  storePoint(point: IngestPoint): Promise<StorePointResult>;
  /** A bulk import of past readings in one step (store/import-points.ts). */
  importPoints(deviceId: string, readings: readonly ImportReading[]): Promise<{ projectId: string }>;
  /** A command's move after its write (store/commands.ts); null when the command or its device does not exist. */
  moveCommand(deviceId: string, commandId: string, state: Exclude<CommandState, 'queued'>, at?: string): Promise<CommandChange | null>;
  /** Keeps a write the broker did not take for the device, and schedules the device for the command resender. */
  keepUnsent(deviceId: string, pin: string, value: string, at: Date, command: UnsentCommand): Promise<void>;
  /**
   * A device's own notification rules and what rule scopes ask of it (store/rule-records.ts), for
   * the threshold rule cache; null when the device is gone. A rule that does not parse is skipped
   * and handed to `onUnreadable`.
   */
  readRuleSet(
    deviceId: string,
    onUnreadable: (err: unknown) => void,
  ): Promise<{ subject: RuleSubject & { projectId: string }; rules: NotificationRule[] } | null>;
  /** A project's template, tag and project rules, for the threshold rule cache. */
  readScopedRules(projectId: string, onUnreadable: (err: unknown) => void): Promise<NotificationRule[]>;
}

/** Where ingest writes: the history stream family and its bound, the outbox family, the resender's schedule. */
export interface IngestStreams {
  historyStream: string;
  historyStreamMax: number;
  outbox: string;
  unsentCommands: string;
}

export function createIngestStore(redis: Redis, commands: CommandStore, streams: IngestStreams): IngestStore {
  const { historyStream, historyStreamMax, outbox } = streams;
  const pending = createPendingCommandStore(redis);
  const unsent = createSchedule(redis, streams.unsentCommands);
  return {
    storePoint: (point) => storePoint(redis, { ...point, historyStream, historyStreamMax, outbox }),
    importPoints: (deviceId, readings) => importPoints(redis, { deviceId, readings, historyStream, historyStreamMax }),
    moveCommand: (deviceId, commandId, state, at) => commands.move(deviceId, commandId, state, at),
    async keepUnsent(deviceId, pin, value, at, command) {
      await pending.keep(deviceId, pin, value, at, command);
      await unsent.add(deviceId);
    },
    async readRuleSet(deviceId, onUnreadable) {
      const [subject, rules] = await Promise.all([readRuleSubject(redis, deviceId), readDeviceRules(redis, deviceId, onUnreadable)]);
      return subject && { subject, rules };
    },
    readScopedRules: (projectId, onUnreadable) => readScopedRules(redis, projectId, onUnreadable),
  };
}
