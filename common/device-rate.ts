import { z } from 'zod';
import type { Plan } from './config';

/**
 * A device's values per second by its owner's plan (DESIGN §11, docs/limits.md "A device's
 * values"): beyond it a device's values are dropped and counted. Each default is overridable by
 * env `QUOTA_<PLAN>_DEVICE_VALUES_PER_S`; 0 means no limit.
 */
const ENV = {
  free: 'QUOTA_FREE_DEVICE_VALUES_PER_S',
  pro: 'QUOTA_PRO_DEVICE_VALUES_PER_S',
  pro_plus: 'QUOTA_PRO_PLUS_DEVICE_VALUES_PER_S',
  enterprise: 'QUOTA_ENTERPRISE_DEVICE_VALUES_PER_S',
} as const satisfies Record<Plan, string>;

type DeviceRateEnvName = (typeof ENV)[Plan];

const perSecond = (fallback: number) => z.coerce.number().min(0).default(fallback);

/** The zod shape of the four variables, merged into common/config.ts's schema. */
export const deviceRateEnvShape = {
  QUOTA_FREE_DEVICE_VALUES_PER_S: perSecond(5),
  QUOTA_PRO_DEVICE_VALUES_PER_S: perSecond(50),
  QUOTA_PRO_PLUS_DEVICE_VALUES_PER_S: perSecond(500),
  QUOTA_ENTERPRISE_DEVICE_VALUES_PER_S: perSecond(0),
} satisfies Record<DeviceRateEnvName, z.ZodType>;

/** A plan's device values per second from the loaded configuration; null: no limit. */
export function deviceValuesPerSecond(config: Readonly<Record<DeviceRateEnvName, number>>, plan: Plan): number | null {
  const limit = config[ENV[plan]];
  return limit > 0 ? limit : null;
}
