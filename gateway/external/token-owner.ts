import { hashSecret } from '../../common/credentials';
import type { StoredUser } from '../../store/users';
import type { DeviceWithState } from '../../store/devices';
import type { RouteDeps } from '../route-deps';

/** Where a simple token led last time: its device, the device's project, and that project's owner. */
interface TokenPath {
  deviceId: string;
  projectId: string;
  ownerId: string;
}

/** Tokens whose path a node remembers; the oldest is forgotten first. */
const REMEMBERED_TOKENS = 10_000;

export interface TokenOwner {
  device: DeviceWithState;
  owner: StoredUser;
}

/**
 * A simple token's device and the owner of its project (whose plan and limits apply), read fresh
 * on every request, so rotating a token, deleting a device or changing an owner or plan takes
 * effect at once (docs/architecture.md, "Simple token lookup"). The four reads depend on each
 * other (token → device → project's members → owner); a node remembers the path a token took last
 * time, so it can issue all four together (one Redis round trip, auto-pipelined) and only checks
 * that each read still leads to the next. When one does not (a rotation, a move, a new owner), the
 * path is forgotten and walked again one read after another, as a token seen for the first time is.
 * Unknown tokens are never remembered.
 */
export function createTokenOwnerLookup({ stores }: Pick<RouteDeps, 'stores'>) {
  const paths = new Map<string, TokenPath>();

  /** Kept by the token's hash, as the store keeps it: a node's memory holds no token. */
  const remember = (token: string, path: TokenPath): void => {
    const key = hashSecret(token);
    paths.delete(key);
    paths.set(key, path);
    if (paths.size > REMEMBERED_TOKENS) paths.delete(paths.keys().next().value as string);
  };

  async function walk(token: string): Promise<TokenOwner | null> {
    paths.delete(hashSecret(token));
    const deviceId = await stores.devices.idBySimpleToken(token);
    const device = deviceId ? await stores.devices.get(deviceId) : null;
    const ownerId = device ? await stores.projects.ownerOf(device.projectId) : null;
    const owner = ownerId ? await stores.users.get(ownerId) : null;
    if (!device || !owner) return null;
    remember(token, { deviceId: device.id, projectId: device.projectId, ownerId: owner.id });
    return { device, owner };
  }

  return async (token: string): Promise<TokenOwner | null> => {
    const path = paths.get(hashSecret(token));
    if (!path) return walk(token);
    const [deviceId, device, ownerId, owner] = await Promise.all([
      stores.devices.idBySimpleToken(token),
      stores.devices.get(path.deviceId),
      stores.projects.ownerOf(path.projectId),
      stores.users.get(path.ownerId),
    ]);
    const same = deviceId === path.deviceId && device?.projectId === path.projectId && ownerId === path.ownerId;
    return same && device && owner ? { device, owner } : walk(token);
  };
}
