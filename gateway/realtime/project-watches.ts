/**
 * The rooms each socket of this node is subscribed to, by project, so that it sits in a project's
 * watch room (common/contracts.ts `rooms.watch`) while it watches the project or any of its
 * devices, and leaves it with its last subscription there. Local to the node holding the socket.
 * A revocation (revocations.ts) takes the rooms, the watch room with them, away on whichever node
 * holds the socket without telling this record, which may then name subscriptions the socket no
 * longer has. The record only ever holds more than the socket's rooms, never less, so a later
 * unsubscribe may leave the socket in a watch room longer than needed (its node decodes events it
 * drops) but never takes the watch room from a socket still in one of the project's rooms.
 */
export function projectWatches() {
  const bySocket = new WeakMap<object, Map<string, Set<string>>>();
  return {
    /** Records that `socket` is subscribed to `room`, one of `projectId`'s. */
    add(socket: object, projectId: string, room: string): void {
      const projects = bySocket.get(socket) ?? new Map<string, Set<string>>();
      bySocket.set(socket, projects);
      const watched = projects.get(projectId) ?? new Set<string>();
      projects.set(projectId, watched.add(room));
    },
    /** Forgets `room`; true when `socket` has no other subscription in `projectId`. */
    remove(socket: object, projectId: string, room: string): boolean {
      const watched = bySocket.get(socket)?.get(projectId);
      watched?.delete(room);
      if (watched && watched.size > 0) return false;
      bySocket.get(socket)?.delete(projectId);
      return true;
    },
  };
}
