/** The run's version (workflows/twin/version.ts): each patch asked once, in the order running histories recorded them. */
import {
  HEARTBEAT_REWATCH_PATCH,
  HEARTBEAT_WATCH_PATCH,
  LOCAL_STEPS_PATCH,
  REWATCH_AT_ONCE_PATCH,
  twinVersion,
} from '../../../workflows/twin/version';

test('a run asks each patch once, the heartbeat watch first, and keeps the answers', () => {
  const asked: string[] = [];
  const version = twinVersion((id) => {
    asked.push(id);
    return id === HEARTBEAT_WATCH_PATCH;
  });
  expect(asked).toEqual([HEARTBEAT_WATCH_PATCH, LOCAL_STEPS_PATCH, HEARTBEAT_REWATCH_PATCH, REWATCH_AT_ONCE_PATCH]);
  expect(version).toEqual({ heartbeatWatch: true, localSteps: false, heartbeatRewatch: false, rewatchAtOnce: false });
});
