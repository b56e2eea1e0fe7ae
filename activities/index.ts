import { createAlarmActivities } from './alarms';
import { createChannelActivities } from './channels';
import { createCommandActivities } from './commands';
import type { ActivityDeps } from './deps';
import { createMirrorActivities } from './mirror';
import { createNotificationActivities } from './notifications';

export type { ActivityDeps } from './deps';
export { createJobActivities, type JobActivities, type JobActivityDeps } from './jobs';
export { createRoomEmitter, type EmitToRooms } from './socket-events';

/** Every activity of the device twin, bound to its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createMirrorActivities(deps),
    ...createNotificationActivities(deps),
    ...createCommandActivities(deps),
    ...createChannelActivities(deps),
    ...createAlarmActivities(deps),
  };
}

export type TwinActivities = ReturnType<typeof createActivities>;
