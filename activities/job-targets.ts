import type { JobTarget, StoredJob } from '../common/jobs';
import type { Redis } from '../common/redis';
import type { DeviceFilter } from '../store/device-filter';
import { selectDeviceIds } from '../store/device-selection';

/** A job's target as the device list's filter (DESIGN §13: `filter` takes the list's fields; `tag` and `templateId` are two of them). */
function filterOf(target: JobTarget): DeviceFilter {
  if (target.tag !== undefined) return { tag: target.tag };
  if (target.templateId !== undefined) return { templateId: target.templateId };
  const { lastSeenBefore, lastSeenAfter, ...rest } = target.filter ?? {};
  return {
    ...rest,
    ...(lastSeenBefore !== undefined ? { lastSeenBefore: Date.parse(lastSeenBefore) } : {}),
    ...(lastSeenAfter !== undefined ? { lastSeenAfter: Date.parse(lastSeenAfter) } : {}),
  };
}

/**
 * The devices a job goes to, chosen when it starts by the device list's own selection
 * (store/device-selection.ts) within the job's project, oldest first; `deviceIds` keeps the
 * project's devices it names (one deleted or of another project is left out).
 */
export async function selectJobTargets(redis: Redis, job: StoredJob): Promise<string[]> {
  const { deviceIds } = job.target;
  if (deviceIds !== undefined) {
    const named = new Set(deviceIds);
    return (await selectDeviceIds(redis, [job.projectId], {})).filter((id) => named.has(id));
  }
  return selectDeviceIds(redis, [job.projectId], filterOf(job.target));
}
