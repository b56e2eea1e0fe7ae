import type { DdsSocket } from './socket-types';

/** setTimeout's longest delay (a longer one fires at once): a later expiry is reached in several waits. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Disconnects the socket when the session it connected with expires (docs/api.md "Real-time"),
 * as a logout does: a connection never outlives its access token. One timer per socket, cleared
 * when the socket disconnects first.
 */
export function closeAtSessionExpiry(socket: DdsSocket): void {
  const expiresAtMs = Date.parse(socket.data.sessionExpiresAt);
  let timer: NodeJS.Timeout | undefined;
  socket.once('disconnect', () => clearTimeout(timer));
  const arm = (): void => {
    const left = expiresAtMs - Date.now();
    if (left <= 0) socket.disconnect(true);
    else timer = setTimeout(arm, Math.min(left, MAX_DELAY_MS));
  };
  arm();
}
