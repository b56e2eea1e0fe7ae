/**
 * Shards (docs/architecture.md "Redis Cluster"): every key owned by a device, a project or a user
 * carries the hash tag of its owner's shard, `{s<k>}`, and each shard has its own outbox and history
 * stream, so a step that writes a device's keys and a stream stays in one cluster slot. A constant:
 * changing it renames keys (a migration, docs/operations.md).
 */
export const SHARDS = 16;

/** FNV-1a (32 bit) of `text`'s characters, going on from `h`: the hash of what comes before `text`. */
export function fnv1a(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The last id shardOf hashed: one step builds several keys of the same owner in a row. */
let lastId = '';
let lastShard = 0;

/** The shard of an id: FNV-1a of its characters, mod SHARDS. Stable across processes and releases. */
export function shardOf(id: string): number {
  if (id !== lastId) {
    lastShard = fnv1a(id) % SHARDS;
    lastId = id;
  }
  return lastShard;
}

/** Each shard's hash tag, `{s<k>}`. */
const TAGS = Array.from({ length: SHARDS }, (_, k) => `{s${k}}`);

/** The hash tag of an id's shard. */
const tag = (id: string): string => TAGS[shardOf(id)] as string;

/** The stream of one shard in a family of per-shard streams (keys.outbox, keys.historyStream). */
export function shardStream(family: string, shard: number): string {
  return `${family}:{s${shard}}`;
}

/** The stream of `family` in the slot of `ownerId`'s keys (a device, a project or a user). */
export function streamOf(family: string, ownerId: string): string {
  return shardStream(family, shardOf(ownerId));
}

/** Every shard's fleet index (keys.fleetIndex): what a filtered device list reads, one range each. */
export const fleetIndexes = (): string[] => TAGS.map((t) => `fleet:${t}`);

/** Every shard's stream of a family: what a relay or persister reads, one XREADGROUP each. */
export function shardStreams(family: string): string[] {
  return Array.from({ length: SHARDS }, (_, k) => shardStream(family, k));
}

/** The one Redis key scheme. Every store builds its keys here, so a cascade delete can find them all. */
export const keys = {
  user: (userId: string) => `user:${tag(userId)}:${userId}`,
  userByEmail: (email: string) => `user:email:${email.toLowerCase()}`,
  userProjects: (userId: string) => `user:${tag(userId)}:${userId}:projects`,
  userApiKeys: (userId: string) => `user:${tag(userId)}:${userId}:apikeys`,
  /** The projects a user owns, scored by creation (epoch ms): their `projects` quota (store/quota-ledger.ts). */
  userOwnedProjects: (userId: string) => `user:${tag(userId)}:${userId}:owned-projects`,
  /** The devices of every project a user owns, scored by creation (epoch ms): their `devices` quota. */
  userDevices: (userId: string) => `user:${tag(userId)}:${userId}:devices`,
  session: (tokenHash: string) => `session:${tokenHash}`,
  apiKey: (keyId: string) => `apikey:${tag(keyId)}:${keyId}`,
  apiKeyByHash: (keyHash: string) => `apikey:hash:${keyHash}`,
  project: (projectId: string) => `project:${tag(projectId)}:${projectId}`,
  projectMembers: (projectId: string) => `project:${tag(projectId)}:${projectId}:members`,
  projectDevices: (projectId: string) => `project:${tag(projectId)}:${projectId}:devices`,
  device: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}`,
  /**
   * The outbox: a stream of intents (notifications to deliver, ...) written in the same step as the
   * state change they belong to, carried out by every gateway node's relay. One per task queue:
   * deployments (or test stacks) sharing a Redis each carry out their own. This is the family's
   * name: each shard has its stream (`streamOf`, `shardStreams`), written in the owner's slot.
   */
  outbox: (taskQueue: string) => `outbox:${taskQueue}`,
  /**
   * The outbox of `twin-online` intents (the gateway showed a device online ahead of its twin), a
   * family of its own beside `outbox`, so that a reconnect storm's thousands of them never stand in
   * front of other intents; carried out by relays of their own at the pace the twins confirm
   * (gateway/outbox/relays.ts, docs/architecture.md "Reconnect storms").
   */
  onlineOutbox: (taskQueue: string) => `outbox-online:${taskQueue}`,
  /**
   * Devices with commands kept because publishing them failed while the device was online
   * (gateway/mqtt/command-resender.ts), scored by when the next node may try them (epoch ms). One per
   * task queue, like the outbox; a key of its own slot, used only by single-key steps.
   */
  unsentCommands: (taskQueue: string) => `commands-unsent:${taskQueue}`,
  /**
   * Points written and not yet in PostgreSQL: appended by ingest in the same step as the latest
   * value, drained by every node's history persister (gateway/history/persister.ts). One per task
   * queue, like the outbox. An entry is one point (`p`) or a bulk import's readings (`b`):
   * store/history-stream.ts. A family, like the outbox: one stream per shard, the device's
   * (`streamOf(family, deviceId)`).
   */
  historyStream: (taskQueue: string) => `history:${taskQueue}`,
  /** How many points a history stream's bulk entries hold beyond one each; named after the stream, so in its hash slot. */
  historyExtra: (historyStream: string) => `${historyStream}:extra`,
  deviceByToken: (tokenHash: string) => `device:dt:${tokenHash}`,
  deviceBySimpleToken: (tokenHash: string) => `device:iot:${tokenHash}`,
  /**
   * The fleet index of a device's shard (store/lua/lib/fleet-index.lua, store/fleet-index.ts): the
   * entries the device list's filters find devices by, of every project's devices in that shard, in
   * their slot. `fleetIndexes` names every shard's.
   */
  fleetIndex: (deviceId: string) => `fleet:${tag(deviceId)}`,
  /** The twin's mirror: status, lastSeen, statusChangedAt, ipAddress, firmwareVersion, hardwareType. */
  deviceState: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:state`,
  /** Latest value of each pin: field = pin name, value = JSON `{value, updatedAt}`. */
  devicePins: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:pins`,
  /** Pin locks: field = pin name, value = JSON `{lockedAt, widgetId}`. Written by the twin's activities. */
  deviceLocks: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:locks`,
  /**
   * Commands kept for a device that was not online when they were written: field = pin name,
   * value = JSON `{value, queuedAt}` (newest per pin). Written by ingest, drained by the twin.
   */
  devicePending: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:pending`,
  /** Whether each threshold rule of a device is inside its condition now: field = rule id, value 1|0. */
  deviceRuleState: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:rule-state`,
  /** The alarms of a device, one per threshold rule: field = rule id, value = JSON (Alarm in contracts.ts; store/alarms.ts). */
  deviceAlarms: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:alarms`,
  /** One command (Command in contracts.ts; store/commands.ts), JSON; expires a week after it was made. */
  command: (commandId: string) => `command:${tag(commandId)}:${commandId}`,
  /** A device's recent command ids, scored by creation (epoch ms); the newest 100 are kept. */
  deviceCommands: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:commands`,
  /** Short-lived marker: the twin was just told this offline device is active (dedups the signal). */
  deviceWake: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:wake`,
  /** Ids of the notification rules bound to a device. */
  deviceRules: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:rules`,
  projectRules: (projectId: string) => `project:${tag(projectId)}:${projectId}:rules`,
  /** Ids of a project's rules of scope template, tag or project (DESIGN §12): a subset of projectRules. */
  projectScopedRules: (projectId: string) => `project:${tag(projectId)}:${projectId}:scoped-rules`,
  /**
   * A counter bumped on every change to what projectScopedRules or a template's heartbeat says: a
   * twin that last loaded an older one reloads its rules (docs/architecture.md "Fleet rules").
   */
  projectRulesVersion: (projectId: string) => `project:${tag(projectId)}:${projectId}:rules-version`,
  /** Set once a scoped rule change's fleet catch-up wrote its chunks (store/lua/catch-up-once-2.lua): a repeat writes none. Expires. */
  fleetCaughtUp: (projectId: string, changeId: string) => `project:${tag(projectId)}:${projectId}:caught-up:${changeId}`,
  /** Ids of a project's templates. */
  projectTemplates: (projectId: string) => `project:${tag(projectId)}:${projectId}:templates`,
  /** One template, stored as JSON (Template in contracts.ts). */
  template: (templateId: string) => `template:${tag(templateId)}:${templateId}`,
  /** Ids of the widgets bound to a template's pins (its dashboard, shown for any of its devices). */
  templateWidgets: (templateId: string) => `template:${tag(templateId)}:${templateId}:widgets`,
  /** Ids of the devices made from or given a template: its deviceCount, and what a template delete waits on. */
  templateDevices: (templateId: string) => `template:${tag(templateId)}:${templateId}:devices`,
  /** A template's provisioning key while enabled (DESIGN §14): a hash whose `keyHash` is the SHA-256 of the key (store/provisioning.ts). */
  templateProvisioning: (templateId: string) => `template:${tag(templateId)}:${templateId}:provisioning`,
  /** Serials provisioned from a template: field = serial, value = the device id it claimed (store/provisioning.ts). */
  templateSerials: (templateId: string) => `template:${tag(templateId)}:${templateId}:serials`,
  /** The template whose provisioning key has this hash (its own slot; counts only while the template holds that hash). */
  provisioningKey: (keyHash: string) => `provision-key:${keyHash}`,
  /** One job (Job in common/jobs.ts), JSON (store/jobs.ts); its keys below share its slot. */
  job: (jobId: string) => `job:${tag(jobId)}:${jobId}`,
  /** A job's targets, fixed when it starts, in the order it sends to them (a list of device ids). */
  jobTargets: (jobId: string) => `job:${tag(jobId)}:${jobId}:targets`,
  /** A job's per-device entries (JobDevice in common/jobs.ts), JSON by device id. */
  jobDevices: (jobId: string) => `job:${tag(jobId)}:${jobId}:devices`,
  /** What a job's devices last reported on `{root}/{id}/ota/status` (OtaReport in common/jobs.ts), JSON by device id. */
  jobReports: (jobId: string) => `job:${tag(jobId)}:${jobId}:reports`,
  /** Ids of a project's jobs, scored by creation (epoch ms). */
  projectJobs: (projectId: string) => `project:${tag(projectId)}:${projectId}:jobs`,
  /** A firmware download grant by SHA-256 of its token (store/ota-tokens.ts): image, device and job; expires with the job's TTL. */
  otaToken: (tokenHash: string) => `ota-token:${tokenHash}`,
  /** One notification rule, stored as JSON (NotificationRule in contracts.ts). */
  rule: (ruleId: string) => `rule:${tag(ruleId)}:${ruleId}`,
  /** One dashboard widget, stored as JSON (Widget in store/widgets.ts); `config.label` labels its pin. */
  widget: (widgetId: string) => `widget:${tag(widgetId)}:${widgetId}`,
  /** Ids of the widgets of a project. */
  projectWidgets: (projectId: string) => `project:${tag(projectId)}:${projectId}:widgets`,
  /** Ids of the widgets bound to a device. */
  deviceWidgets: (deviceId: string) => `device:${tag(deviceId)}:${deviceId}:widgets`,
  /** One notification record, stored as JSON (NotificationRecord in contracts.ts). */
  notification: (notificationId: string) => `notification:${tag(notificationId)}:${notificationId}`,
  /** All notifications of a project: sorted set of ids scored by createdAt (epoch ms). */
  projectNotifications: (projectId: string) => `project:${tag(projectId)}:${projectId}:notifications`,
  /**
   * The notifications of a project one member has not read: a subset of projectNotifications, same
   * scores. Read state is each member's own; the key is named by project first, so a move to Redis
   * Cluster tags the project id and keeps every notification write of a project in one slot.
   */
  projectMemberUnreadNotifications: (projectId: string, userId: string) =>
    `project:${tag(projectId)}:${projectId}:notifications:unread:${userId}`,
  /**
   * The notifications of a project that one filter of GET /notifications matches (a type, a device,
   * or both): subsets of projectNotifications, same scores, in the project's slot, written in the
   * same step as it (store/lua/index-notification-n.lua), so a filtered read never scans records.
   */
  projectNotificationsMatching: (projectId: string, filter: { deviceId?: string | null; type?: string }) =>
    `project:${tag(projectId)}:${projectId}:notifications:by${filter.deviceId ? `:device:${filter.deviceId}` : ''}${filter.type ? `:type:${filter.type}` : ''}`,
  /** The names of a project's projectNotificationsMatching sets, scored by their newest entry: what a project delete removes. */
  projectNotificationSets: (projectId: string) => `project:${tag(projectId)}:${projectId}:notifications:sets`,
  /** Ids of the notifications one account's rules emailed in one UTC day (YYYY-MM-DD): its daily email cap; expires after it. */
  mailDay: (ownerId: string, day: string) => `user:${tag(ownerId)}:${ownerId}:mail:d:${day}`,
  /** The notification one account's rule and device last emailed, for a minute: one email per rule and device per minute. */
  mailRuleDevice: (ownerId: string, ruleId: string, deviceId: string) => `user:${tag(ownerId)}:${ownerId}:mail:m:${ruleId}:${deviceId}`,
  /** A pending email verification, by SHA-256 of its one-time token: the user and the address it verifies; expires. */
  emailVerification: (tokenHash: string) => `email-verify:${tokenHash}`,
  /** Set while a user may not ask for another verify email (one a minute); expires. */
  emailVerificationSent: (userId: string) => `user:${tag(userId)}:${userId}:verify-sent`,
  /** Requests of a user to the external interfaces in one minute window (epoch minutes); expires after it. */
  rateLimitMinute: (userId: string, window: number) => `ratelimit:${tag(userId)}:${userId}:m:${window}`,
  /** Requests of a user to the external interfaces in one UTC day (YYYY-MM-DD); expires after it. */
  rateLimitDay: (userId: string, day: string) => `ratelimit:${tag(userId)}:${userId}:d:${day}`,
  /** Management API requests of a user in one minute window (epoch minutes), a budget apart from the external one; expires after it. */
  managementRateLimit: (userId: string, window: number) => `ratelimit:${tag(userId)}:${userId}:management:${window}`,
  /** Registrations from one client address in one throttle window; expires after it. */
  registerAddress: (address: string, window: number) => `register:address:${address}:${window}`,
  /** Refused provisioning attempts from one client address in one throttle window; expires after it. */
  provisionAddress: (address: string, window: number) => `provision:address:${address}:${window}`,
  /** Login attempts on one account (SHA-256 of its lowercased email) in one throttle window; expires after it. */
  loginAccount: (emailHash: string, window: number) => `login:account:${emailHash}:${window}`,
  /** Login attempts from one client address in one throttle window; expires after it. */
  loginAddress: (address: string, window: number) => `login:address:${address}:${window}`,
} as const;
