import { hashSecret } from '../../common/credentials';
import type { Plan } from '../../common/config';
import type { DeviceWithState } from '../../store/devices';
import type { RouteDeps } from '../route-deps';

/** Where a simple token led when it was last let in: its device, the device's project, that project's owner and the owner's plan. */
export interface TokenPath {
  deviceId: string;
  projectId: string;
  ownerId: string;
  plan: Plan;
}

/** Tokens whose path a node remembers; the oldest is forgotten first. */
const REMEMBERED_TOKENS = 10_000;

export interface TokenOwner {
  device: DeviceWithState;
  /** The owner of the device's project: whose plan and limits apply. */
  owner: { id: string; plan: Plan };
}

/**
 * A simple token's device and the owner of its project (whose plan and limits apply), read fresh
 * on every request, so rotating a token, deleting a device or changing an owner or plan takes
 * effect at once (docs/architecture.md, "Simple token lookup"). The reads depend on each other
 * (token → device → project's members → owner); a node remembers the path a token took when it
 * was last let in, so `read` can issue them all together (one Redis round trip: none waits on another's reply)
 * and only checks that each read still leads to the next: the device still holds the token's hash
 * and is in the project, the user still owns the project, and has a plan. When one does not (a rotation, a move,
 * a new owner), the path is forgotten and walked again one read after another, as a token seen for
 * the first time is. Only the caller remembers a path (`remember`, once the token was let in), so
 * a token that leads nowhere, or to a refusal, is never remembered.
 */
export function createTokenOwnerLookup({ stores }: Pick<RouteDeps, 'stores'>) {
  /** Kept by the token's hash, as the store keeps it: a node's memory holds no token. */
  const paths = new Map<string, TokenPath>();

  async function walk(token: string): Promise<TokenOwner | null> {
    const deviceId = await stores.devices.idBySimpleToken(token);
    const device = deviceId ? await stores.devices.get(deviceId) : null;
    const ownerId = device ? await stores.projects.ownerOf(device.projectId) : null;
    const owner = ownerId ? await stores.users.get(ownerId) : null;
    return device && owner ? { device, owner: { id: owner.id, plan: owner.plan } } : null;
  }

  const forget = (token: string): void => {
    paths.delete(hashSecret(token));
  };

  return {
    /** The path the token took when it was last let in, if this node remembers it. */
    remembered: (token: string): TokenPath | undefined => paths.get(hashSecret(token)),

    /** The token's device and its project's owner as Redis has them now; null when the token leads nowhere. */
    async read(token: string): Promise<TokenOwner | null> {
      const path = paths.get(hashSecret(token));
      if (!path) return walk(token);
      const [device, owns, plan] = await Promise.all([
        stores.devices.withSimpleToken(token, path.deviceId),
        stores.projects.isOwner(path.projectId, path.ownerId),
        stores.users.planOf(path.ownerId),
      ]);
      if (device?.projectId === path.projectId && owns && plan) return { device, owner: { id: path.ownerId, plan } };
      forget(token);
      return walk(token);
    },

    /** Remembers where a token that was let in led (the newest REMEMBERED_TOKENS tokens). */
    remember(token: string, { device, owner }: TokenOwner): void {
      const key = hashSecret(token);
      paths.delete(key);
      paths.set(key, { deviceId: device.id, projectId: device.projectId, ownerId: owner.id, plan: owner.plan });
      if (paths.size > REMEMBERED_TOKENS) paths.delete(paths.keys().next().value as string);
    },

    forget,
  };
}

export type TokenOwnerLookup = ReturnType<typeof createTokenOwnerLookup>;
