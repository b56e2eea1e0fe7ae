import type { Plan } from '../../common/plans';
import type { SimpleTokenHolder } from '../../store/devices';
import type { RouteDeps } from '../routes/route-deps';

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
  device: SimpleTokenHolder;
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
 * a token that leads nowhere, or to a refusal, is never remembered. Every function takes the
 * token's hash (hashSecret), computed once per request: a node's memory, like the store, holds no token.
 */
export function createTokenOwnerLookup({ stores }: Pick<RouteDeps, 'stores'>) {
  /** Kept by the token's hash, as the store keeps it. */
  const paths = new Map<string, TokenPath>();

  async function walk(hash: string): Promise<TokenOwner | null> {
    const deviceId = await stores.devices.idBySimpleTokenHash(hash);
    const device = deviceId ? await stores.devices.simpleTokenHolder(hash, deviceId) : null;
    const ownerId = device ? await stores.projects.ownerOf(device.projectId) : null;
    const plan = ownerId ? await stores.users.planOf(ownerId) : null;
    return device && ownerId && plan ? { device, owner: { id: ownerId, plan } } : null;
  }

  const forget = (hash: string): void => {
    paths.delete(hash);
  };

  return {
    /** The path the token took when it was last let in, if this node remembers it. */
    remembered: (hash: string): TokenPath | undefined => paths.get(hash),

    /** The token's device and its project's owner as Redis has them now; null when the token leads nowhere. */
    async read(hash: string): Promise<TokenOwner | null> {
      const path = paths.get(hash);
      if (!path) return walk(hash);
      const [device, owns, plan] = await Promise.all([
        stores.devices.simpleTokenHolder(hash, path.deviceId),
        stores.projects.isOwner(path.projectId, path.ownerId),
        stores.users.planOf(path.ownerId),
      ]);
      if (device?.projectId === path.projectId && owns && plan) return { device, owner: { id: path.ownerId, plan } };
      forget(hash);
      return walk(hash);
    },

    /** Remembers where a token that was let in led (the newest REMEMBERED_TOKENS tokens). */
    remember(hash: string, { device, owner }: TokenOwner): void {
      paths.delete(hash);
      paths.set(hash, { deviceId: device.id, projectId: device.projectId, ownerId: owner.id, plan: owner.plan });
      if (paths.size > REMEMBERED_TOKENS) paths.delete(paths.keys().next().value as string);
    },

    forget,
  };
}

export type TokenOwnerLookup = ReturnType<typeof createTokenOwnerLookup>;
