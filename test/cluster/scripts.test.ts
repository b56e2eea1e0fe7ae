/**
 * Every Redis script in store/lua runs on a 3-master Redis Cluster (docs/architecture.md "Redis
 * Cluster": each names keys of one slot only, the keys it derives included; Redis refuses a script
 * that crosses slots). Each script is driven once through the store call that uses it, its outcome
 * checked, and a MONITOR on every master records each script that Redis ran (by SHA): the test
 * fails for any file in store/lua that did not run on the cluster. Runs only in the
 * `redis-cluster` jest project (jest.config.js), on the run's cluster.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { Cluster } from 'ioredis';
import { hashSecret } from '../../common/credentials';
import { QuotaExceededError } from '../../common/errors';
import { createRedis, type Redis } from '../../common/redis';
import { keys, streamOf } from '../../common/redis-keys';
import { idInShardOf } from '../../common/shard-ids';
import { createStores, type Stores } from '../../store';
import { fleetCatchUp } from '../../store/fleet-catch-up';
import { newDevice } from '../../store/devices';
import { writeInfo, writeStatus, writeStatusAhead } from '../../store/device-mirror';
import { importPoints } from '../../store/import-points';
import { waitPersisted } from '../../store/history-stream';
import { startHistoryPersister } from '../../gateway/history/persister';
import { createPointWriter } from '../../gateway/history/point-writer';
import { scriptSha } from '../../store/lua/load';
import { createNotificationStore } from '../../store/notifications';
import { admitEmail } from '../../store/email-admission';
import { createPendingCommandStore } from '../../store/pending-commands';
import { openHistoryDatabase, type HistoryDatabase } from '../../store/pg/history-db';
import { createLogger } from '../../common/logger';
import { storePoint } from '../../store/store-point';
import { createHeldTwinMessages, writeTwinMessage } from '../../store/twin-messages';
import { createSchedule } from '../../store/schedule';
import type { NotificationRule } from '../../common/contracts';
import { testConfig } from '../harness/config';
import { monitorCommands } from '../helpers/redis-monitor';
import { eventually } from '../helpers/wait';

const LUA = join(__dirname, '..', '..', 'store', 'lua');
const scripts = readdirSync(LUA)
  .filter((f) => f.endsWith('.lua'))
  .map((f) => f.replace(/\.lua$/, ''));
const nameBySha = new Map(scripts.map((name) => [scriptSha(name), name]));

let redis: Redis;
let db: HistoryDatabase;
let stores: Stores;
const monitors: Socket[] = [];
const ran = new Set<string>();
const config = testConfig({ TEMPORAL_TASK_QUEUE: `cluster-scripts-${randomUUID()}` });
const outbox = keys.outbox(config.TEMPORAL_TASK_QUEUE);
const history = keys.historyStream(config.TEMPORAL_TASK_QUEUE);

beforeAll(async () => {
  expect(config.REDIS_CLUSTER_NODES).toHaveLength(3);
  redis = createRedis(config, 'test-cluster-scripts', 10_000);
  expect(redis).toBeInstanceOf(Cluster);
  // Migrated as a gateway node migrates it at start (the range delete below reads it).
  db = await openHistoryDatabase(
    config.DATABASE_URL as string,
    'test-cluster-scripts',
    config.HISTORY_RETENTION_DAYS,
    createLogger('silent', 'test'),
  );
  stores = createStores(redis, db.pool, config, randomBytes(32).toString('hex'));
  await (redis as Cluster).ping();
  // A monitor of its own per master (not a Cluster node's connection, which serves the stores).
  for (const node of (redis as Cluster).nodes('master')) {
    const monitor = await monitorCommands(node.options.host as string, node.options.port as number, ([command, shaOrBody]) => {
      const kind = command?.toLowerCase();
      if ((kind !== 'evalsha' && kind !== 'eval') || shaOrBody === undefined) return;
      // MONITOR's lines are read byte for byte (latin1): the body's bytes are hashed as Redis got them.
      const name = nameBySha.get(kind === 'eval' ? createHash('sha1').update(Buffer.from(shaOrBody, 'latin1')).digest('hex') : shaOrBody);
      if (name) ran.add(name);
    });
    monitors.push(monitor);
  }
});

afterAll(async () => {
  for (const monitor of monitors) monitor.destroy();
  await Promise.allSettled([redis?.quit(), db?.close()]);
});

/**
 * Persists a device's points (the persister's own acknowledgement script runs with it) and waits
 * until its shard's history stream has none left, as a gateway node's persister for that shard does.
 */
async function persistHistory(deviceId: string): Promise<void> {
  const connection = createRedis(config, 'test-cluster-persister', 10_000);
  const stream = streamOf(history, deviceId);
  const persister = await startHistoryPersister({
    redis: connection,
    writer: createPointWriter(db.pool),
    stream,
    consumer: 'test-cluster-scripts',
    retentionDays: config.HISTORY_RETENTION_DAYS,
    logger: createLogger('silent', 'test'),
  });
  try {
    await waitPersisted(redis, stream, 30_000);
  } finally {
    await persister.stop();
    await connection.quit();
  }
}

test('every script in store/lua runs on the cluster, each through the store call that uses it', async () => {
  // Users, sessions, login throttle, rate limits, API keys.
  const owner = await stores.users.create({ email: `o-${randomUUID()}@example.com`, name: 'Owner', plan: 'free', passwordHash: 'x' });
  const member = await stores.users.create({ email: `m-${randomUUID()}@example.com`, name: null, plan: 'free', passwordHash: 'x' });
  if (!owner || !member) throw new Error('sign-up refused');
  expect((await stores.users.findByEmail(owner.email))?.id).toBe(owner.id);
  expect(await stores.users.create({ email: owner.email, name: null, plan: 'free', passwordHash: 'y' })).toBeNull();
  expect(await stores.users.setPlan(owner.id, 'pro')).toBe(true);
  const attempt = await stores.loginThrottle.attempt(owner.email, '203.0.113.9', { perAccount: 3, perAddress: 3, windowS: 60 });
  expect(attempt.allowed).toBe(true);
  await attempt.succeeded();
  const counted = new Date();
  expect((await stores.rateLimits.hit(owner.id, { perMinute: 5, perDay: 10 }, counted)).allowed).toBe(true);
  await stores.rateLimits.takeBack(owner.id, counted);
  expect((await stores.rateLimits.peek(owner.id, { perMinute: 5, perDay: 10 }, counted)).minute).toBe(0);
  const { apiKey, key } = await stores.apiKeys.create(owner.id, 'ci', null, { resource: 'apiKeys', limit: 1 });
  expect((await stores.apiKeys.resolve(key))?.id).toBe(apiKey.id);
  await expect(stores.apiKeys.create(owner.id, 'over', null, { resource: 'apiKeys', limit: 1 })).rejects.toEqual(
    new QuotaExceededError({ resource: 'apiKeys', limit: 1, used: 1 }),
  );
  await stores.apiKeys.touch(apiKey, new Date());
  expect(await stores.apiKeys.revoke(owner.id, apiKey.id)).toBe(true);
  expect(await stores.apiKeys.resolve(key)).toBeNull();

  // Projects, members, devices and their credentials.
  const project = await stores.projects.create(owner.id, 'P', '', { resource: 'projects', limit: 1 });
  await expect(stores.projects.create(owner.id, 'P2', '', { resource: 'projects', limit: 1 })).rejects.toBeInstanceOf(QuotaExceededError);
  expect(await stores.members.add(project.id, member.id, 'viewer', { resource: 'members', limit: 2 })).toBe(true);
  await expect(stores.members.add(project.id, randomUUID(), 'viewer', { resource: 'members', limit: 2 })).rejects.toEqual(
    new QuotaExceededError({ resource: 'members', limit: 2, used: 2 }),
  );
  expect((await stores.projects.listFor(member.id)).map((p) => p.id)).toEqual([project.id]);
  const fresh = newDevice(project.id, { name: 'd', description: '', tags: [] });
  await stores.devices.reserve(owner.id, [fresh], { resource: 'devices', limit: 2 });
  const created = await stores.devices.create([fresh], owner.id);
  if (!created.created) throw new Error('device create refused');
  const [device] = created.devices;
  if (!device) throw new Error('device create made nothing');
  const simple = await stores.devices.issueSimpleToken(device.id);
  expect(simple).not.toBeNull();
  const simpleHash = hashSecret(simple as string);
  expect(await stores.devices.idBySimpleTokenHash(simpleHash)).toBe(device.id);
  expect(await stores.devices.simpleTokenHolder(simpleHash, device.id)).toEqual({
    id: device.id,
    projectId: project.id,
    simpleApiEnabled: false,
  });
  expect(await stores.devices.stageToken(device.id, 'dt_staged')).toBe(true);
  await stores.devices.dropStagedToken(device.id, 'dt_staged');
  expect(await stores.devices.isStagedToken(device.id, 'dt_staged')).toBe(false);

  // Values: a live write, a bulk import, the twin's status, an alarm, commands, a range delete.
  const at = new Date();
  const stored = await storePoint(redis, {
    deviceId: device.id,
    pin: 'V1',
    value: '21',
    at,
    historyStream: history,
    historyStreamMax: 1_000_000,
    towardDevice: false,
    fromDevice: true,
    wakeTtlS: 5,
    ruleStates: [],
    outbox,
  });
  expect(stored.projectId).toBe(project.id);
  const imported = await importPoints(redis, {
    deviceId: device.id,
    readings: [
      { pin: 'V2', value: '7', ms: at.getTime() },
      { pin: 'V2', value: '8', ms: at.getTime() + 1 },
    ],
    historyStream: history,
    historyStreamMax: 1_000_000,
  });
  expect(imported.projectId).toBe(project.id);
  expect((await stores.pins.one(device.id, 'V2'))?.value).toBe('8');
  expect((await writeStatusAhead(redis, { deviceId: device.id, at: at.toISOString(), outbox })).written).toBe(true);
  expect(
    (await writeStatus(redis, { deviceId: device.id, status: 'online', statusChangedAt: at.toISOString(), lastSeen: at.toISOString() }))
      .written,
  ).toBe(true);
  expect(await writeInfo(redis, device.id, { firmwareVersion: '1.0.0' })).toBe(true);
  expect(await stores.devices.list([project.id], { firmwareVersion: '1.0.0', page: 1, limit: 10 })).toMatchObject({ total: 1 });
  const ruleId = randomUUID();
  const raised = await stores.alarms.raise({
    edgeId: randomUUID(),
    projectId: project.id,
    deviceId: device.id,
    ruleId,
    pin: 'V1',
    severity: 'warning',
    value: '21',
    at: at.toISOString(),
  });
  expect(raised?.changed).toBe(true);
  const commandId = idInShardOf(device.id);
  const written = await storePoint(redis, {
    deviceId: device.id,
    pin: 'V3',
    value: '1',
    at,
    historyStream: history,
    historyStreamMax: 1_000_000,
    towardDevice: true,
    fromDevice: false,
    wakeTtlS: 5,
    ruleStates: [],
    outbox,
    command: {
      id: commandId,
      deviceId: device.id,
      pin: 'V3',
      value: '1',
      state: 'queued',
      createdAt: at.toISOString(),
      createdMs: at.getTime(),
      sentAt: null,
      acknowledgedAt: null,
      expiresAt: null,
    },
  });
  expect(written.command).toMatchObject({ id: commandId, projectId: project.id, state: 'queued' });
  expect((await stores.commands.get(commandId))?.state).toBe('queued');
  await persistHistory(device.id);
  expect((await stores.commands.move(device.id, commandId, 'sent', at.toISOString()))?.command.state).toBe('sent');
  // A device's `/ack` payload is any text: one that cannot be its command's id is no command, never a CROSSSLOT error.
  for (const garbage of ['not-a-command', `${commandId}{s3}`, idInShardOf(randomUUID())]) {
    expect(await stores.commands.move(device.id, garbage, 'acknowledged')).toBeNull();
  }
  expect(
    await writeTwinMessage(redis, outbox, {
      kind: 'info',
      payload: { deviceId: device.id, info: { firmwareVersion: '1.2.3' }, at: at.toISOString() },
    }),
  ).toBe(true);
  expect(
    await writeTwinMessage(redis, outbox, { kind: 'status', payload: { deviceId: randomUUID(), status: 'offline', at: at.toISOString() } }),
  ).toBe(false);
  // A second info in the same second is held for the window's end, then settled once told.
  expect(
    await writeTwinMessage(redis, outbox, {
      kind: 'info',
      payload: { deviceId: device.id, info: { ipAddress: '192.0.2.7' }, at: at.toISOString() },
    }),
  ).toBe(true);
  const held = createHeldTwinMessages(redis);
  const heldInfo = await held.read(device.id, 'info');
  expect(JSON.parse(heldInfo as string)).toMatchObject({ info: { ipAddress: '192.0.2.7' } });
  expect(await held.settle(device.id, 'info', heldInfo)).toBe(true);
  const pending = createPendingCommandStore(redis);
  await pending.keep(device.id, 'V4', 'on');
  const kept = await pending.list(device.id);
  expect(kept).toHaveLength(1);
  await pending.delivered(device.id, kept[0] as (typeof kept)[number]);
  expect(await pending.list(device.id)).toEqual([]);
  const unsent = createSchedule(redis, keys.unsentCommands(`cluster-${randomUUID()}`));
  await unsent.add(device.id, 1000);
  const claimed = await unsent.claimDue(2000, 500, 10);
  expect(claimed).toEqual({ members: [device.id], score: 2500 });
  await unsent.remove(device.id, claimed.score);
  expect((await unsent.claimDue(9000, 500, 10)).members).toEqual([]);
  expect(await stores.pinSeries.deleteRange(device.id, 'V1', null, null)).toBe(1);
  expect(await stores.pinSeries.latest(device.id, 'V1')).toBeNull();

  // Rules and widgets (bound to the device), notifications.
  const rule: NotificationRule = {
    id: randomUUID(),
    projectId: project.id,
    scope: 'device',
    deviceId: device.id,
    templateId: null,
    tag: null,
    condition: 'offline',
    pin: null,
    threshold: null,
    duration: null,
    message: '',
    channels: ['inApp'],
    enabled: true,
    createdAt: at.toISOString(),
  } as NotificationRule;
  expect(await stores.rules.create(rule, { resource: 'rules', limit: 1 })).not.toBeNull();
  const updated = await stores.rules.update(rule.id, async (r) => ({ ...r, message: 'changed' }));
  expect(updated.kind).toBe('replaced');
  expect((await stores.rules.list(project.id)).map((r) => r.message)).toEqual(['changed']);
  const widget = {
    id: randomUUID(),
    type: 'VALUE_DISPLAY',
    projectId: project.id,
    deviceId: device.id,
    pin: 1,
    layout: { x: 0, y: 0, w: 2, h: 2 },
    config: {},
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
  } as Parameters<Stores['widgets']['create']>[0];
  expect(await stores.widgets.create(widget, { resource: 'widgets', limit: 1 })).toBe(true);
  expect((await stores.widgets.update(widget.id, async (w) => ({ ...w, pin: 2 }))).kind).toBe('replaced');
  // A template (DESIGN §12): the device given it and new tags, a project rule, the template's dashboard.
  const template = {
    id: randomUUID(),
    projectId: project.id,
    name: 't',
    description: '',
    heartbeatTimeoutS: 30,
    pins: [],
    createdAt: at.toISOString(),
  };
  expect(await stores.templates.create(template, { resource: 'templates', limit: 1 })).toMatchObject({ deviceCount: 0 });
  expect(await stores.templates.claim(template.id, device.id)).toBe(true);
  // Serials claimed in the template's slot, all or none (a first boot's, a bulk import's).
  const serials = [{ serial: 'SN-1', deviceId: device.id }];
  expect(await stores.provisioning.claimSerials(template.id, serials)).toEqual([]);
  expect(await stores.provisioning.claimSerials(template.id, [...serials, { serial: 'SN-2', deviceId: device.id }])).toEqual(['SN-1']);
  const rulesChanged = { type: 'rules-changed' as const, payload: { projectId: project.id, deviceIds: [device.id] } };
  expect(await stores.devices.update(device.id, { templateId: template.id, tags: ['x'] }, rulesChanged)).toMatchObject({
    intent: rulesChanged,
  });
  expect(await stores.devices.get(device.id)).toMatchObject({ templateId: template.id, tags: ['x'] });
  expect(await stores.templates.delete(template)).toEqual({ kind: 'in-use', devices: 1 });
  const projectRule = {
    ...rule,
    id: randomUUID(),
    scope: 'project',
    deviceId: null,
    condition: 'no_data',
    duration: 60,
  } as NotificationRule;
  const madeRule = await stores.rules.create(projectRule, { resource: 'rules', limit: 2 });
  const fleet = madeRule?.intent.type === 'rules-changed' ? madeRule.intent.payload.fleet : undefined;
  expect(fleet).toMatchObject({ ruleId: projectRule.id, armTimers: true });
  if (fleet === undefined) throw new Error('a project no_data rule asks for the fleet catch-up');
  expect(await fleetCatchUp(redis, outbox, project.id, fleet)).toBe(1);
  expect(await fleetCatchUp(redis, outbox, project.id, fleet)).toBe(0);
  expect((await stores.rules.scoped(project.id)).map((r) => r.id)).toEqual([projectRule.id]);
  expect(await stores.rules.delete(projectRule)).not.toBeNull();
  const templateWidget = { ...widget, id: randomUUID(), deviceId: null, templateId: template.id };
  expect(await stores.widgets.create(templateWidget, { resource: 'widgets', limit: 2 })).toBe(true);
  expect((await stores.widgets.listOfTemplate(template.id)).map((w) => w.id)).toEqual([templateWidget.id]);
  expect(await stores.widgets.delete(templateWidget)).toBe(true);
  const notificationId = randomUUID();
  const record = {
    id: notificationId,
    projectId: project.id,
    deviceId: device.id,
    ruleId: null,
    type: 'device' as const,
    title: 't',
    message: 'm',
    priority: 'normal' as const,
    channels: ['inApp' as const],
    read: false,
    createdAt: at.toISOString(),
  };
  expect(await createNotificationStore(redis).create(record, { onlyIfExists: keys.device(device.id) })).toBe('created');
  expect((await stores.notifications.list(member.id, [project.id], {}, 1, 10)).unread).toBe(1);
  const storedNotification = await stores.notifications.get(notificationId);
  expect(await stores.notifications.delete(storedNotification as NonNullable<typeof storedNotification>)).toBe(true);
  // Email admission (store/email-admission.ts): one per rule and device a minute, within the owner's daily cap.
  expect(await admitEmail(redis, { id: notificationId, ownerId: owner.id, ruleId: rule.id, deviceId: device.id }, 1)).toBe('ok');
  expect(await admitEmail(redis, { id: randomUUID(), ownerId: owner.id, ruleId: rule.id, deviceId: device.id }, 1)).toBe('throttled');
  expect(await stores.rules.delete(rule)).not.toBeNull();
  expect(await stores.rules.get(rule.id)).toBeNull();

  // A job's OTA reports: kept for a target only, a late progress report never over the final one.
  const jobId = randomUUID();
  await stores.jobs.fixTargets(jobId, [device.id], new Date().toISOString());
  expect(await stores.jobs.report(randomUUID(), { jobId, state: 'downloading', progress: 0 })).toBe(false);
  expect(await stores.jobs.report(device.id, { jobId, state: 'failed', error: 'flash write error' })).toBe(true);
  expect(await stores.jobs.report(device.id, { jobId, state: 'downloading', progress: 75 })).toBe(true);
  expect((await stores.jobs.reports(jobId, [device.id])).get(device.id)?.state).toBe('failed');

  // Cascades: a device, then its project with another device in it.
  expect(await stores.devices.delete(device.id)).toMatchObject({ intent: { type: 'device-retire' } });
  expect(await stores.devices.get(device.id)).toBeNull();
  expect(await stores.widgets.get(widget.id)).toBeNull();
  // The device let its template go with it.
  expect(await stores.templates.delete(template)).toEqual({ kind: 'deleted' });
  const second = newDevice(project.id, { name: 'd2', description: '', tags: [] });
  await stores.devices.reserve(owner.id, [second], { resource: 'devices', limit: 2 });
  const other = await stores.devices.create([second], owner.id);
  if (!other.created) throw new Error('device create refused');
  expect(await stores.quotaUsage.of(owner.id)).toMatchObject({ projects: 1, devices: 1, members: 2 });
  expect((await stores.projects.delete(project.id)).map((w) => w.intent)).toEqual([
    { type: 'device-retire', payload: { deviceId: second.device.id } },
  ]);
  expect(await stores.devices.get(second.device.id)).toBeNull();
  expect(await stores.quotaUsage.of(owner.id)).toMatchObject({ projects: 0, devices: 0 });
  // A device create after its project's delete is refused, its broker account taken back.
  const late = newDevice(project.id, { name: 'd3', description: '', tags: [] });
  expect(await stores.devices.create([late], owner.id)).toMatchObject({
    created: false,
    retires: [{ intent: { type: 'device-retire', payload: { deviceId: late.device.id } } }],
  });
  expect(await stores.devices.get(late.device.id)).toBeNull();
  expect(await stores.projects.listFor(owner.id)).toEqual([]);

  // MONITOR reports asynchronously: each script's EVALSHA is seen once the masters have sent it.
  await eventually(() => expect([...ran].sort()).toEqual([...scripts].sort()));
});
