import { randomUUID } from 'node:crypto';
import { isDisconnectReason, type DeviceStatus, type DisconnectReason, type PinLock } from '../common/contracts';
import type { OutboxIntent, WrittenIntent } from '../common/outbox-intents';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { decryptSecret, encryptSecret, hashSecret, newSecret } from '../common/credentials';
import { deleteDeviceScript } from './lua/cascade';
import { luaScript } from './lua/load';
import { hsetIfExists } from './lua/hset-if-exists';
import { hdelIfEquals } from './lua/hdel-if-equals';
import { intentArgs, outboxFields, writtenIntent } from './outbox';
import { swapCredential, type SwapOutcome } from './lua/swap-credential';
import { parseLocks } from './pin-locks';
import { zaddAllWithin } from './quota-ledger';
import { publishRulesChanged } from './rules-changed';
import type { DeviceFilter } from './device-filter';
import { selectDeviceIds } from './device-selection';
import { dropDeviceRecord, writeDeviceRecord } from './fleet-index';
import { inChunks } from '../common/in-chunks';

export const DEVICE_TOKEN_PREFIX = 'dt_';
export const SIMPLE_TOKEN_PREFIX = 'iot_';
/** The device hash field holding the hash of a `dt_` token being changed to, until the broker took it. */
const STAGED_TOKEN_FIELD = 'stagedTokenHash';
const INDEX_DEVICES = luaScript('index-devices-3');
/** Devices whose records a create writes side by side (a bulk import's rows, a chunk at a time). */
const RECORD_CHUNK = 1_000;
const PATCH = luaScript('patch-device-3');

export function newDeviceToken(): string {
  return newSecret(DEVICE_TOKEN_PREFIX, 24);
}

export interface Device {
  id: string;
  projectId: string;
  name: string;
  description: string;
  tags: string[];
  createdAt: string;
  tokenLast4: string;
  simpleApiEnabled: boolean;
  /** The template it was made from or given (DESIGN §12), or null. */
  templateId: string | null;
  /** Its own heartbeat timeout, or null for its template's (else the service default). */
  heartbeatTimeoutS: number | null;
  /** The serial it provisioned itself with (DESIGN §14), or null. */
  serial: string | null;
}

/** What a PATCH may change. */
export interface DevicePatch {
  name?: string;
  description?: string;
  tags?: string[];
  templateId?: string | null;
  heartbeatTimeoutS?: number | null;
}

/** What the twin's mirror says about a device (DESIGN §1): absent fields mean not known yet. */
export interface DeviceState {
  status: DeviceStatus;
  lastSeen: string | null;
  statusChangedAt: string | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  /** Why the device last went offline (docs/alarms.md); null while online or not known. */
  disconnectReason: DisconnectReason | null;
}

/** A device as the simple interface's admission sees it (store.simpleTokenHolder). */
export type SimpleTokenHolder = Pick<Device, 'id' | 'projectId' | 'simpleApiEnabled'>;

export interface DeviceWithState extends Device {
  state: DeviceState;
}

function toDevice(h: Record<string, string>): Device | null {
  if (!h.id || !h.projectId || h.name === undefined || !h.createdAt) return null;
  return {
    id: h.id,
    projectId: h.projectId,
    name: h.name,
    description: h.description ?? '',
    tags: h.tags ? (JSON.parse(h.tags) as string[]) : [],
    createdAt: h.createdAt,
    tokenLast4: h.tokenLast4 ?? '',
    simpleApiEnabled: h.simpleApiEnabled === '1',
    templateId: h.templateId || null,
    heartbeatTimeoutS: h.heartbeatTimeoutS ? Number(h.heartbeatTimeoutS) : null,
    serial: h.serial || null,
  };
}

export function toDeviceState(h: Record<string, string>): DeviceState {
  return {
    status: h.status === 'online' ? 'online' : 'offline',
    lastSeen: h.lastSeen || null,
    statusChangedAt: h.statusChangedAt || null,
    ipAddress: h.ipAddress || null,
    firmwareVersion: h.firmwareVersion || null,
    hardwareType: h.hardwareType || null,
    disconnectReason: h.status !== 'online' && isDisconnectReason(h.disconnectReason) ? h.disconnectReason : null,
  };
}

/** A device not written yet, with its `dt_` token: made first, so the broker takes its account before Redis shows it. */
export interface NewDevice {
  device: Device;
  token: string;
}

/** A device create's end: written, or refused because its project is gone (their retire intents written instead). */
export type CreateOutcome = { created: true; devices: DeviceWithState[] } | { created: false; retires: WrittenIntent[] };

/** What a device is made with: the API's create fields, and a serial when it provisions itself. */
export interface NewDeviceInput {
  name: string;
  description: string;
  tags: string[];
  templateId?: string | null;
  heartbeatTimeoutS?: number | null;
  serial?: string | null;
}

export function newDevice(projectId: string, input: NewDeviceInput): NewDevice {
  const token = newDeviceToken();
  const device: Device = {
    id: randomUUID(),
    projectId,
    name: input.name,
    description: input.description,
    tags: input.tags,
    createdAt: new Date().toISOString(),
    tokenLast4: token.slice(-4),
    simpleApiEnabled: false,
    templateId: input.templateId ?? null,
    heartbeatTimeoutS: input.heartbeatTimeoutS ?? null,
    serial: input.serial ?? null,
  };
  return { device, token };
}

/** A page of devices: by page number (management) or by offset (external REST). */
export type DeviceListQuery = DeviceFilter & { limit: number } & ({ page: number } | { offset: number });

/** `outbox`: the outbox family (keys.outbox) a device's twin-start and device-retire intents are written to. */
export function createDeviceStore(redis: Redis, credentialKey: string, outbox: string) {
  async function withStates(devices: Device[]): Promise<DeviceWithState[]> {
    // Devices live in several slots: concurrent commands, in flight together on each node's connection.
    const states = await Promise.all(devices.map((d) => redis.hgetall(keys.deviceState(d.id))));
    return devices.map((d, i) => ({ ...d, state: toDeviceState(states[i] ?? {}) }));
  }

  return {
    /**
     * Writes devices (newDevice) of one project whose broker accounts already exist, owned (for
     * their quota) by the project's owner, who took their slots first (`reserve`): one device for
     * POST /devices, a bulk import's rows at once. Three slots per device (docs/architecture.md
     * "Redis Cluster", "Device create"): the token's index and the device (a chunk of devices side by
     * side), then the project step (index-devices-3.lua), which makes every one part of the project
     * in one atomic step with the check that the project is there, and writes their twin-start
     * intents. A project gone or deleted meanwhile refuses that step, which writes the devices'
     * device-retire intents instead (the broker accounts go); the devices and their token indexes
     * are then removed.
     */
    async create(fresh: NewDevice[], ownerId: string): Promise<CreateOutcome> {
      const projectId = fresh[0]?.device.projectId;
      if (projectId === undefined || fresh.some(({ device }) => device.projectId !== projectId)) {
        throw new Error('a device create writes one or more devices of one project');
      }
      await inChunks(fresh, RECORD_CHUNK, async ({ device, token }) => {
        const tokenHash = hashSecret(token);
        await redis.set(keys.deviceByToken(tokenHash), device.id);
        await writeDeviceRecord(redis, device.id, {
          id: device.id,
          projectId,
          ownerId,
          name: device.name,
          description: device.description,
          tags: JSON.stringify(device.tags),
          createdAt: device.createdAt,
          tokenHash,
          tokenLast4: device.tokenLast4,
          simpleApiEnabled: '0',
          ...(device.templateId ? { templateId: device.templateId } : {}),
          ...(device.heartbeatTimeoutS ? { heartbeatTimeoutS: String(device.heartbeatTimeoutS) } : {}),
          ...(device.serial ? { serial: device.serial } : {}),
        });
      });
      const stream = streamOf(outbox, projectId);
      const [indexed, ...entryIds] = (await INDEX_DEVICES(
        redis,
        [keys.project(projectId), keys.projectDevices(projectId), stream],
        fresh.flatMap(({ device: { id: deviceId, createdAt } }) => [
          deviceId,
          Date.parse(createdAt),
          JSON.stringify({ deviceId, projectId }),
          JSON.stringify({ deviceId }),
        ]),
      )) as [number, ...string[]];
      if (indexed === 1) return { created: true, devices: fresh.map(({ device }) => ({ ...device, state: toDeviceState({}) })) };
      await this.forget(fresh);
      return {
        created: false,
        retires: fresh.map(({ device }, i) => ({
          stream,
          entryId: entryIds[i] as string,
          intent: { type: 'device-retire', payload: { deviceId: device.id } },
        })),
      };
    },

    /** Removes what `create` wrote of devices that did not become part of their project (their records, their token indexes). */
    async forget(fresh: NewDevice[]): Promise<void> {
      await inChunks(fresh, RECORD_CHUNK, ({ device, token }) =>
        Promise.all([dropDeviceRecord(redis, device.id), redis.del(keys.deviceByToken(hashSecret(token)))]),
      );
    },

    /**
     * The first step of a device create, before the broker or Redis is given anything: the devices'
     * slots in their project owner's devices quota (their ledger, store/quota-ledger.ts), taken with
     * the quota's check in one atomic step, all or none. Throws QuotaExceededError when the owner's
     * devices, in all their projects, would pass the limit.
     */
    async reserve(ownerId: string, fresh: NewDevice[], quota: Quota): Promise<void> {
      const members = fresh.map(({ device }) => ({ score: Date.parse(device.createdAt), member: device.id }));
      await zaddAllWithin(redis, keys.userDevices(ownerId), members, quota);
    },

    /** Gives back the slots `reserve` took for devices whose create did not go through. */
    async release(ownerId: string, deviceIds: string[]): Promise<void> {
      await redis.zrem(keys.userDevices(ownerId), ...deviceIds);
    },

    /**
     * The device-retire intents for devices that were never written, each in its shard's outbox:
     * they take back whatever broker accounts the devices were given (a create that failed partway).
     */
    async retireAccounts(deviceIds: string[]): Promise<WrittenIntent[]> {
      const written: WrittenIntent[] = [];
      await inChunks(deviceIds, RECORD_CHUNK, async (deviceId) => {
        const stream = streamOf(outbox, deviceId);
        const intent: OutboxIntent = { type: 'device-retire', payload: { deviceId } };
        const entryId = (await redis.xadd(stream, '*', ...outboxFields(intent))) as string;
        written.push({ stream, entryId, intent });
      });
      return written;
    },

    async get(deviceId: string): Promise<DeviceWithState | null> {
      const [device, state] = await Promise.all([redis.hgetall(keys.device(deviceId)), redis.hgetall(keys.deviceState(deviceId))]);
      const d = toDevice(device);
      return d ? { ...d, state: toDeviceState(state) } : null;
    },

    /** Devices of the given projects, oldest first, filtered (DeviceFilter, store/device-filter.ts) and paged. */
    async list(projectIds: string[], query: DeviceListQuery): Promise<{ devices: DeviceWithState[]; total: number }> {
      const ids = await selectDeviceIds(redis, projectIds, query);
      const start = 'offset' in query ? query.offset : (query.page - 1) * query.limit;
      const pageIds = ids.slice(start, start + query.limit);
      const rows = await Promise.all(pageIds.map((id) => redis.hgetall(keys.device(id))));
      const devices = rows.map((r) => toDevice(r)).filter((d): d is Device => d !== null);
      return { devices: await withStates(devices), total: ids.length };
    },

    /**
     * Changes a device's fields, with `intent` (its twin's rules-changed, when what its twin watches
     * changed) in the same step, then tells every gateway node's threshold cache when its tags or
     * template changed; 'gone' when the device is gone, else the intent written (or null).
     */
    async update(deviceId: string, patch: DevicePatch, intent: OutboxIntent | null): Promise<WrittenIntent | null | 'gone'> {
      const fields: string[] = [];
      if (patch.name !== undefined) fields.push('name', patch.name);
      if (patch.description !== undefined) fields.push('description', patch.description);
      if (patch.tags !== undefined) fields.push('tags', JSON.stringify(patch.tags));
      if (patch.templateId !== undefined) fields.push('templateId', patch.templateId ?? '');
      if (patch.heartbeatTimeoutS !== undefined)
        fields.push('heartbeatTimeoutS', patch.heartbeatTimeoutS === null ? '' : String(patch.heartbeatTimeoutS));
      const stream = streamOf(outbox, deviceId);
      const reply = await PATCH(redis, [keys.device(deviceId), stream, keys.fleetIndex(deviceId)], [...intentArgs(intent), ...fields]);
      if (reply === 0) return 'gone';
      if (patch.tags !== undefined || patch.templateId !== undefined) await publishRulesChanged(redis, deviceId);
      return intent === null ? null : writtenIntent(reply, intent, stream);
    },

    /**
     * Step 1 of a `dt_` token change (docs/architecture.md "Nothing half-written"): records the
     * new token's hash as staged beside the current one, which stays in force. False when the
     * device is gone.
     */
    async stageToken(deviceId: string, token: string): Promise<boolean> {
      return hsetIfExists(redis, keys.device(deviceId), { [STAGED_TOKEN_FIELD]: hashSecret(token) });
    },

    /**
     * Step 3, once the broker took the token: the staged token replaces the current one (hash,
     * lookup key, last 4). `not-staged` when this token is no longer the staged one (a later
     * change staged its own).
     */
    async commitToken(deviceId: string, token: string): Promise<SwapOutcome> {
      return swapCredential(redis, {
        deviceKey: keys.device(deviceId),
        hashField: 'tokenHash',
        newHash: hashSecret(token),
        lookupTemplate: keys.deviceByToken('{hash}'),
        deviceId,
        stagedField: STAGED_TOKEN_FIELD,
        extra: { tokenLast4: token.slice(-4) },
      });
    },

    /** Whether `token` is still the staged one (its change neither committed nor replaced by a later one). */
    async isStagedToken(deviceId: string, token: string): Promise<boolean> {
      return (await redis.hget(keys.device(deviceId), STAGED_TOKEN_FIELD)) === hashSecret(token);
    },

    /** Forgets a staged token the broker refused; a later change's staged token is left alone. */
    async dropStagedToken(deviceId: string, token: string): Promise<void> {
      await hdelIfEquals(redis, keys.device(deviceId), STAGED_TOKEN_FIELD, hashSecret(token));
    },

    /** Deletes the device and writes its device-retire intent in the same step; null when it did not exist. */
    async delete(deviceId: string): Promise<WrittenIntent | null> {
      return deleteDeviceScript(redis, outbox, deviceId);
    },

    /** The readable `iot_` token of the simple interface, or null when it was never created. */
    async simpleToken(deviceId: string): Promise<string | null> {
      const sealed = await redis.hget(keys.device(deviceId), 'simpleTokenSealed');
      return sealed ? decryptSecret(sealed, credentialKey) : null;
    },

    /** The device whose `iot_` token has this hash (hashSecret), or null when no device has it (now). */
    async idBySimpleTokenHash(hash: string): Promise<string | null> {
      const id = await redis.get(keys.deviceBySimpleToken(hash));
      // The index is its own slot: it counts only while the device holds that hash (docs/architecture.md "Redis Cluster").
      return id !== null && (await redis.hget(keys.device(id), 'simpleTokenHash')) === hash ? id : null;
    },

    /**
     * What the simple interface's admission needs of the device `deviceId` (its project, whether the
     * interface is on), when the `iot_` token of this hash is its token now; else null. The
     * device's own token hash decides (the index only finds the device: swap-credential-1.lua),
     * so with the device named up front the index is not read; only these fields are read, not
     * the whole device and its state.
     */
    async simpleTokenHolder(hash: string, deviceId: string): Promise<SimpleTokenHolder | null> {
      const [id, projectId, held, enabled] = await redis.hmget(
        keys.device(deviceId),
        'id',
        'projectId',
        'simpleTokenHash',
        'simpleApiEnabled',
      );
      return id && projectId && held === hash ? { id, projectId, simpleApiEnabled: enabled === '1' } : null;
    },

    /** Creates a new `iot_` token (replacing any old one); null when the device is gone. */
    async issueSimpleToken(deviceId: string): Promise<string | null> {
      const token = newSecret(SIMPLE_TOKEN_PREFIX, 24);
      const swapped = await swapCredential(redis, {
        deviceKey: keys.device(deviceId),
        hashField: 'simpleTokenHash',
        newHash: hashSecret(token),
        lookupTemplate: keys.deviceBySimpleToken('{hash}'),
        deviceId,
        extra: { simpleTokenSealed: encryptSecret(token, credentialKey) },
      });
      return swapped === 'swapped' ? token : null;
    },

    /** The pin locks the twin mirrored (DESIGN §5), ordered by pin name. */
    async locks(deviceId: string): Promise<PinLock[]> {
      return parseLocks(await redis.hgetall(keys.deviceLocks(deviceId)));
    },

    async setSimpleApiEnabled(deviceId: string, enabled: boolean): Promise<void> {
      await hsetIfExists(redis, keys.device(deviceId), { simpleApiEnabled: enabled ? '1' : '0' });
    },
  };
}

export type DeviceStore = ReturnType<typeof createDeviceStore>;
