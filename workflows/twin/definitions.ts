/**
 * The twin's messages as Temporal knows them (names are part of running histories: never
 * renamed), and its input. The gateway (gateway/temporal/twin-client.ts) sends them; the shell
 * (device-twin.ts) handles them.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PinLock } from '../../common/contracts';
import type {
  ActivityInput,
  AlarmEdgeInput,
  InfoInput,
  LockInput,
  RulesChangedResult,
  StatusInput,
  TwinConfig,
  TwinView,
  UnlockInput,
  UnlockResult,
} from '../../common/twin-contracts';
import type { TwinState } from './state';

export interface TwinInput extends TwinConfig {
  /** Carried by continue-as-new. */
  state?: TwinState;
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
