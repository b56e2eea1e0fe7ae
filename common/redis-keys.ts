/** The one Redis key scheme. Every store builds its keys here, so a cascade delete can find them all. */
export const keys = {
  user: (userId: string) => `user:${userId}`,
  userByEmail: (email: string) => `user:email:${email.toLowerCase()}`,
  userProjects: (userId: string) => `user:${userId}:projects`,
  userApiKeys: (userId: string) => `user:${userId}:apikeys`,
  session: (tokenHash: string) => `session:${tokenHash}`,
  apiKey: (keyId: string) => `apikey:${keyId}`,
  apiKeyByHash: (keyHash: string) => `apikey:hash:${keyHash}`,
  project: (projectId: string) => `project:${projectId}`,
  projectMembers: (projectId: string) => `project:${projectId}:members`,
  projectDevices: (projectId: string) => `project:${projectId}:devices`,
  device: (deviceId: string) => `device:${deviceId}`,
  /**
   * The outbox: a stream of intents (notifications to deliver, ...) written in the same step as the
   * state change they belong to, carried out by every gateway node's relay. One per task queue:
   * deployments (or test stacks) sharing a Redis each carry out their own.
   */
  outbox: (taskQueue: string) => `outbox:${taskQueue}`,
  /**
   * Points written and not yet in PostgreSQL: appended by ingest in the same step as the latest
   * value, drained by every node's history persister (gateway/history/persister.ts). One per task
   * queue, like the outbox. An entry is one point (`p`) or a bulk import's readings (`b`):
   * store/history-stream.ts.
   */
  historyStream: (taskQueue: string) => `history:${taskQueue}`,
  /** How many points a history stream's bulk entries hold beyond one each; named after the stream, so in its hash slot. */
  historyExtra: (historyStream: string) => `${historyStream}:extra`,
  deviceByToken: (tokenHash: string) => `device:dt:${tokenHash}`,
  deviceBySimpleToken: (tokenHash: string) => `device:iot:${tokenHash}`,
  /** The twin's mirror: status, lastSeen, statusChangedAt, ipAddress, firmwareVersion, hardwareType. */
  deviceState: (deviceId: string) => `device:${deviceId}:state`,
  /** Latest value of each pin: field = pin name, value = JSON `{value, updatedAt}`. */
  devicePins: (deviceId: string) => `device:${deviceId}:pins`,
  /** Pin locks: field = pin name, value = JSON `{lockedAt, widgetId}`. Written by the twin's activities. */
  deviceLocks: (deviceId: string) => `device:${deviceId}:locks`,
  /**
   * Commands kept for a device that was not online when they were written: field = pin name,
   * value = JSON `{value, queuedAt}` (newest per pin). Written by ingest, drained by the twin.
   */
  devicePending: (deviceId: string) => `device:${deviceId}:pending`,
  /** Whether each threshold rule of a device is inside its condition now: field = rule id, value 1|0. */
  deviceRuleState: (deviceId: string) => `device:${deviceId}:rule-state`,
  /** The alarms of a device, one per threshold rule: field = rule id, value = JSON (Alarm in contracts.ts; store/alarms.ts). */
  deviceAlarms: (deviceId: string) => `device:${deviceId}:alarms`,
  /** One command (Command in contracts.ts; store/commands.ts), JSON; expires a week after it was made. */
  command: (commandId: string) => `command:${commandId}`,
  /** A device's recent command ids, scored by creation (epoch ms); the newest 100 are kept. */
  deviceCommands: (deviceId: string) => `device:${deviceId}:commands`,
  /** Short-lived marker: the twin was just told this offline device is active (dedups the signal). */
  deviceWake: (deviceId: string) => `device:${deviceId}:wake`,
  /** Ids of the notification rules bound to a device. */
  deviceRules: (deviceId: string) => `device:${deviceId}:rules`,
  projectRules: (projectId: string) => `project:${projectId}:rules`,
  /** One notification rule, stored as JSON (NotificationRule in contracts.ts). */
  rule: (ruleId: string) => `rule:${ruleId}`,
  /** One dashboard widget, stored as JSON (Widget in store/widgets.ts); `config.label` labels its pin. */
  widget: (widgetId: string) => `widget:${widgetId}`,
  /** Ids of the widgets of a project. */
  projectWidgets: (projectId: string) => `project:${projectId}:widgets`,
  /** Ids of the widgets bound to a device. */
  deviceWidgets: (deviceId: string) => `device:${deviceId}:widgets`,
  /** One notification record, stored as JSON (NotificationRecord in contracts.ts). */
  notification: (notificationId: string) => `notification:${notificationId}`,
  /** All notifications of a project: sorted set of ids scored by createdAt (epoch ms). */
  projectNotifications: (projectId: string) => `project:${projectId}:notifications`,
  /**
   * The notifications of a project one member has not read: a subset of projectNotifications, same
   * scores. Read state is each member's own; the key is named by project first, so a move to Redis
   * Cluster tags the project id and keeps every notification write of a project in one slot.
   */
  projectMemberUnreadNotifications: (projectId: string, userId: string) => `project:${projectId}:notifications:unread:${userId}`,
  /** Requests of a user to the external interfaces in one minute window (epoch minutes); expires after it. */
  rateLimitMinute: (userId: string, window: number) => `ratelimit:${userId}:m:${window}`,
  /** Requests of a user to the external interfaces in one UTC day (YYYY-MM-DD); expires after it. */
  rateLimitDay: (userId: string, day: string) => `ratelimit:${userId}:d:${day}`,
  /** Login attempts on one account (SHA-256 of its lowercased email) in one throttle window; expires after it. */
  loginAccount: (emailHash: string, window: number) => `login:account:${emailHash}:${window}`,
  /** Login attempts from one client address in one throttle window; expires after it. */
  loginAddress: (address: string, window: number) => `login:address:${address}:${window}`,
} as const;
