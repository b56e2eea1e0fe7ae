import type { z } from 'zod';
import type { ErrorCode } from '../../common/errors';
import * as admin from '../routes/admin';
import * as alarms from '../routes/alarms';
import * as commands from '../routes/commands';
import * as apiKeys from '../routes/api-keys';
import * as auth from '../routes/auth';
import * as verifyEmail from '../routes/verify-email';
import * as dataRead from '../routes/data-read';
import * as dataWrite from '../routes/data-write';
import * as devices from '../routes/devices';
import * as deviceImport from '../routes/device-import';
import * as firmware from '../routes/firmware';
import * as members from '../routes/members';
import * as notifications from '../routes/notifications';
import * as projects from '../routes/projects';
import * as rules from '../routes/rules';
import * as simpleSettings from '../routes/simple-api-settings';
import * as templates from '../routes/templates';
import * as widgets from '../routes/widgets';
import * as restDevices from '../external/rest-devices';
import * as restPins from '../external/rest-pins';
import * as simple from '../external/simple-routes';
import { notifyBody } from '../external/notify';
import { downloadQuery } from '../external/firmware-download';
import { provisionBody } from '../external/provision-routes';
import { batch, pinAndValue, pinValue } from '../external/pin-writes';
import { createJobBody, jobDevicesQuery, jobListQuery } from '../schemas/job';
import { createRuleBody, patchRuleBody } from '../schemas/rule';
import { createTemplateBody, patchTemplateBody } from '../schemas/template';
import { createWidgetBody, patchWidgetBody } from '../schemas/widget';

/** Who may call an operation: SPEC's three interfaces, the admin token, or anyone. */
export type Security = 'bearer' | 'admin' | 'apiKey' | 'token' | 'none';

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The Express path template, e.g. `/api/v1/devices/:deviceId`. */
  path: string;
  summary: string;
  security: Security;
  /** The zod schemas the route validates its input with (the same objects, imported). */
  query?: z.ZodType;
  body?: z.ZodType;
  /** Success status: 200 unless given. */
  ok?: 200 | 201 | 204;
  /** Error codes beyond the ones every operation of its interface can answer. */
  errors?: ErrorCode[];
}

const op = (
  method: Operation['method'],
  path: string,
  summary: string,
  security: Security,
  extra: Omit<Operation, 'method' | 'path' | 'summary' | 'security'> = {},
): Operation => ({ method, path, summary, security, ...extra });

const DEVICE: ErrorCode[] = ['DEVICE_NOT_FOUND', 'FORBIDDEN'];
const PROJECT: ErrorCode[] = ['PROJECT_NOT_FOUND', 'FORBIDDEN'];
const TEMPLATE: ErrorCode[] = ['TEMPLATE_NOT_FOUND', 'FORBIDDEN'];
const FIRMWARE: ErrorCode[] = ['FIRMWARE_NOT_FOUND', 'FORBIDDEN'];
const JOB: ErrorCode[] = ['JOB_NOT_FOUND', 'FORBIDDEN'];
const PIN: ErrorCode[] = [...DEVICE, 'INVALID_PIN'];
const WRITE: ErrorCode[] = [...PIN, 'VALUE_TOO_LARGE', 'PIN_LOCKED'];
/** A notificationId that is not a UUID falls through to the service's NOT_FOUND. */
const NOTIFICATION: ErrorCode[] = ['NOTIFICATION_NOT_FOUND', 'NOT_FOUND', 'FORBIDDEN'];

/**
 * Every HTTP operation the gateway serves, with the schemas its route validates. The OpenAPI
 * document is built from this list, and test/ops/openapi.test.ts checks it against the routes
 * Express actually has, both ways.
 */
export const OPERATIONS: Operation[] = [
  op('GET', '/healthz', 'Liveness', 'none'),
  op('GET', '/readyz', 'Readiness of Redis, Temporal, the broker and Socket.IO', 'none', { errors: ['SERVICE_UNAVAILABLE'] }),
  op('GET', '/openapi.json', 'This document', 'none'),

  op('POST', '/api/v1/auth/register', 'Create an account', 'none', {
    body: auth.registerBody,
    ok: 201,
    errors: ['CONFLICT', 'RATE_LIMIT_EXCEEDED'],
  }),
  op('POST', '/api/v1/auth/login', 'Log in', 'none', { body: auth.loginBody, errors: ['INVALID_CREDENTIALS', 'RATE_LIMIT_EXCEEDED'] }),
  op('POST', '/api/v1/auth/logout', 'Revoke this access token and disconnect its Socket.IO connections', 'bearer', { ok: 204 }),
  op('GET', '/api/v1/auth/me', 'The account', 'bearer'),
  op('POST', '/api/v1/auth/verify-email/request', "Email a one-time link that verifies the account's address (once a minute)", 'bearer', {
    errors: ['CONFLICT', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'],
  }),
  op('POST', '/api/v1/auth/verify-email', 'Verify an email address with the token of its link', 'none', {
    body: verifyEmail.verifyEmailBody,
  }),
  op('PUT', '/api/v1/admin/users/:userId/plan', "Set a user's plan", 'admin', {
    body: admin.planBody,
    errors: ['USER_NOT_FOUND', 'NOT_FOUND'],
  }),

  op('POST', '/api/v1/api-keys', 'Create an API key', 'bearer', {
    body: apiKeys.createBody,
    ok: 201,
    errors: ['PLAN_FEATURE_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  }),
  op('GET', '/api/v1/api-keys', 'List API keys', 'bearer'),
  op('GET', '/api/v1/broker', 'Where devices connect: broker address and topic root', 'bearer'),
  op('DELETE', '/api/v1/api-keys/:keyId', 'Revoke an API key', 'bearer', { ok: 204, errors: ['API_KEY_NOT_FOUND'] }),

  op('GET', '/api/v1/projects', 'List projects', 'bearer'),
  op('POST', '/api/v1/projects', 'Create a project', 'bearer', {
    body: projects.createBody,
    ok: 201,
    errors: ['PLAN_FEATURE_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  }),
  op('GET', '/api/v1/projects/:projectId', 'Get a project', 'bearer', { errors: PROJECT }),
  op('PATCH', '/api/v1/projects/:projectId', 'Change a project', 'bearer', { body: projects.patchBody, errors: PROJECT }),
  op('DELETE', '/api/v1/projects/:projectId', 'Delete a project and everything in it', 'bearer', { ok: 204, errors: PROJECT }),
  op('GET', '/api/v1/projects/:projectId/members', 'List members', 'bearer', { errors: PROJECT }),
  op('POST', '/api/v1/projects/:projectId/members', 'Add a member', 'bearer', {
    body: members.addBody,
    ok: 201,
    errors: [...PROJECT, 'USER_NOT_FOUND', 'CONFLICT', 'PLAN_FEATURE_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  }),
  op('PATCH', '/api/v1/projects/:projectId/members/:userId', "Change a member's role", 'bearer', {
    body: members.patchBody,
    errors: [...PROJECT, 'MEMBER_NOT_FOUND'],
  }),
  op('DELETE', '/api/v1/projects/:projectId/members/:userId', 'Remove a member', 'bearer', {
    ok: 204,
    errors: [...PROJECT, 'MEMBER_NOT_FOUND'],
  }),

  op('GET', '/api/v1/templates', 'List device templates of a project', 'bearer', { query: templates.listQuery, errors: PROJECT }),
  op('POST', '/api/v1/templates', 'Create a device template', 'bearer', {
    body: createTemplateBody,
    ok: 201,
    errors: [...PROJECT, 'QUOTA_EXCEEDED'],
  }),
  op('GET', '/api/v1/templates/:templateId', 'Get a device template', 'bearer', { errors: TEMPLATE }),
  op('PATCH', '/api/v1/templates/:templateId', 'Change a device template', 'bearer', { body: patchTemplateBody, errors: TEMPLATE }),
  op('DELETE', '/api/v1/templates/:templateId', 'Delete a device template no device has (its template rules go with it)', 'bearer', {
    ok: 204,
    errors: [...TEMPLATE, 'CONFLICT'],
  }),
  op(
    'POST',
    '/api/v1/templates/:templateId/provisioning',
    'Enable provisioning with a new key (shown once; any earlier key stops working)',
    'bearer',
    {
      errors: TEMPLATE,
    },
  ),
  op('DELETE', '/api/v1/templates/:templateId/provisioning', "Disable provisioning: the template's key stops working", 'bearer', {
    ok: 204,
    errors: TEMPLATE,
  }),
  op('GET', '/api/v1/devices', 'List devices', 'bearer', { query: devices.listQuery, errors: PROJECT }),
  op('POST', '/api/v1/devices', 'Create a device (its token is shown once)', 'bearer', {
    body: devices.createBody,
    ok: 201,
    errors: [...PROJECT, 'PLAN_FEATURE_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  }),
  op(
    'POST',
    '/api/v1/devices/import',
    'Import up to 10,000 devices at once, all or none (their tokens are shown once, JSON or CSV)',
    'bearer',
    {
      query: deviceImport.importQuery,
      body: deviceImport.importBody,
      ok: 201,
      errors: [...PROJECT, 'QUOTA_EXCEEDED', 'ALREADY_PROVISIONED', 'PAYLOAD_TOO_LARGE'],
    },
  ),
  op('GET', '/api/v1/devices/:deviceId', 'Get a device', 'bearer', { errors: DEVICE }),
  op('PATCH', '/api/v1/devices/:deviceId', 'Change a device', 'bearer', { body: devices.patchBody, errors: DEVICE }),
  op('POST', '/api/v1/devices/:deviceId/regenerate-token', 'Issue a new device token', 'bearer', { errors: DEVICE }),
  op('DELETE', '/api/v1/devices/:deviceId', 'Delete a device', 'bearer', { ok: 204, errors: DEVICE }),
  op('GET', '/api/v1/devices/:deviceId/status', "The device's twin state", 'bearer', { errors: DEVICE }),
  op('GET', '/api/v1/devices/:deviceId/simple-api', 'Simple API settings of a device', 'bearer', { errors: DEVICE }),
  op('PUT', '/api/v1/devices/:deviceId/simple-api', 'Turn the simple API on or off', 'bearer', {
    body: simpleSettings.putBody,
    errors: [...DEVICE, 'PLAN_FEATURE_UNAVAILABLE'],
  }),
  op('POST', '/api/v1/devices/:deviceId/simple-api/regenerate-token', 'Issue a new simple API token', 'bearer', { errors: DEVICE }),

  op('POST', '/api/v1/data/:deviceId/bulk', 'Write several pins', 'bearer', { body: dataWrite.bulkBody, errors: WRITE }),
  op('POST', '/api/v1/data/:deviceId/:pin', 'Write a virtual pin', 'bearer', { body: dataWrite.pointBody, ok: 201, errors: WRITE }),
  op('GET', '/api/v1/data/:deviceId/:pin/latest', 'Latest value of a virtual pin', 'bearer', { errors: [...PIN, 'PIN_NOT_FOUND'] }),
  op(
    'GET',
    '/api/v1/data/:deviceId/:pin',
    'History of a pin (a number 0–255 for V, or a name such as D0; JSON or CSV, raw or aggregated)',
    'bearer',
    { query: dataRead.readQuery, errors: PIN },
  ),
  op('DELETE', '/api/v1/data/:deviceId/:pin', 'Delete history of a pin', 'bearer', { query: dataRead.deleteQuery, errors: PIN }),
  op('GET', '/api/v1/devices/:deviceId/locks', 'Locked pins', 'bearer', { errors: DEVICE }),
  op('PUT', '/api/v1/devices/:deviceId/pins/:pin/lock', 'Lock a pin', 'bearer', { errors: PIN }),
  op('DELETE', '/api/v1/devices/:deviceId/pins/:pin/lock', 'Unlock a pin', 'bearer', { ok: 204, errors: PIN }),

  op('GET', '/api/v1/widgets', 'List widgets of a project', 'bearer', { query: widgets.listQuery, errors: PROJECT }),
  op('POST', '/api/v1/widgets', 'Create a widget', 'bearer', {
    body: createWidgetBody,
    ok: 201,
    errors: [...PROJECT, 'DEVICE_NOT_FOUND', 'PIN_LOCKED', 'CONFLICT', 'QUOTA_EXCEEDED'],
  }),
  op('GET', '/api/v1/widgets/:widgetId', 'Get a widget', 'bearer', { errors: ['WIDGET_NOT_FOUND', 'FORBIDDEN'] }),
  op('PATCH', '/api/v1/widgets/:widgetId', 'Change a widget', 'bearer', {
    body: patchWidgetBody,
    errors: ['WIDGET_NOT_FOUND', 'FORBIDDEN', 'DEVICE_NOT_FOUND', 'PIN_LOCKED', 'CONFLICT'],
  }),
  op('DELETE', '/api/v1/widgets/:widgetId', 'Delete a widget', 'bearer', { ok: 204, errors: ['WIDGET_NOT_FOUND', 'FORBIDDEN'] }),

  op('GET', '/api/v1/notifications/rules', 'List notification rules', 'bearer', { query: rules.listQuery, errors: PROJECT }),
  op('POST', '/api/v1/notifications/rules', 'Create a notification rule', 'bearer', {
    body: createRuleBody,
    ok: 201,
    errors: [...PROJECT, 'DEVICE_NOT_FOUND', 'PLAN_FEATURE_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  }),
  op('PATCH', '/api/v1/notifications/rules/:ruleId', 'Change a notification rule', 'bearer', {
    body: patchRuleBody,
    errors: ['RULE_NOT_FOUND', 'FORBIDDEN', 'DEVICE_NOT_FOUND', 'PLAN_FEATURE_UNAVAILABLE'],
  }),
  op('DELETE', '/api/v1/notifications/rules/:ruleId', 'Delete a notification rule', 'bearer', {
    ok: 204,
    errors: ['RULE_NOT_FOUND', 'FORBIDDEN'],
  }),
  op('GET', '/api/v1/notifications', 'List notifications', 'bearer', { query: notifications.listQuery, errors: PROJECT }),
  op('PATCH', '/api/v1/notifications/read-all', 'Mark every notification read', 'bearer', {
    query: notifications.scopeQuery,
    errors: PROJECT,
  }),
  op('GET', '/api/v1/notifications/:notificationId', 'Get a notification', 'bearer', { errors: NOTIFICATION }),
  op('PATCH', '/api/v1/notifications/:notificationId/read', 'Mark a notification read', 'bearer', { errors: NOTIFICATION }),
  op('DELETE', '/api/v1/notifications/:notificationId', 'Delete a notification', 'bearer', { ok: 204, errors: NOTIFICATION }),
  op('GET', '/api/v1/alarms', 'List alarms', 'bearer', { query: alarms.listQuery, errors: PROJECT }),
  op('GET', '/api/v1/alarms/:alarmId', 'Get an alarm', 'bearer', { errors: ['ALARM_NOT_FOUND'] }),
  op('POST', '/api/v1/alarms/:alarmId/acknowledge', 'Acknowledge an alarm', 'bearer', { errors: ['ALARM_NOT_FOUND', 'FORBIDDEN'] }),
  op('POST', '/api/v1/alarms/:alarmId/clear', 'Clear an alarm', 'bearer', { errors: ['ALARM_NOT_FOUND', 'FORBIDDEN'] }),
  op('GET', '/api/v1/devices/:deviceId/commands', "A device's recent commands", 'bearer', { query: commands.listQuery, errors: DEVICE }),
  op('GET', '/api/v1/commands/:commandId', 'Get a command', 'bearer', { errors: ['COMMAND_NOT_FOUND'] }),
  op('POST', '/api/v1/firmware', 'Upload a firmware image (the body is the image, application/octet-stream)', 'bearer', {
    query: firmware.uploadQuery,
    ok: 201,
    errors: [...PROJECT, 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  }),
  op('GET', '/api/v1/firmware', "List a project's firmware images", 'bearer', { query: firmware.listQuery, errors: PROJECT }),
  op('GET', '/api/v1/firmware/:firmwareId', 'Get a firmware image record', 'bearer', { errors: FIRMWARE }),
  op('DELETE', '/api/v1/firmware/:firmwareId', 'Delete a firmware image no unfinished job uses', 'bearer', {
    ok: 204,
    errors: [...FIRMWARE, 'CONFLICT'],
  }),

  op('POST', '/api/v1/jobs', 'Start a job: a command or a firmware update rolled out to devices', 'bearer', {
    body: createJobBody,
    ok: 201,
    errors: PROJECT,
  }),
  op('GET', '/api/v1/jobs', "List a project's jobs, newest first", 'bearer', { query: jobListQuery, errors: PROJECT }),
  op('GET', '/api/v1/jobs/:jobId', 'Get a job', 'bearer', { errors: JOB }),
  op('GET', '/api/v1/jobs/:jobId/devices', "A job's devices and their states", 'bearer', { query: jobDevicesQuery, errors: JOB }),
  op('POST', '/api/v1/jobs/:jobId/cancel', 'Cancel a job that has not ended', 'bearer', { errors: [...JOB, 'CONFLICT'] }),

  op('GET', '/external/api/v1/devices', 'List devices', 'apiKey', { query: restDevices.listQuery }),
  op('GET', '/external/api/v1/devices/:deviceId', 'Get a device', 'apiKey', { errors: DEVICE }),
  op('GET', '/external/api/v1/devices/:deviceId/status', 'Device status', 'apiKey', { errors: DEVICE }),
  op('GET', '/external/api/v1/devices/:deviceId/pins', 'Every pin value', 'apiKey', { errors: DEVICE }),
  op('GET', '/external/api/v1/devices/:deviceId/pins/:pin', 'One pin value', 'apiKey', { errors: [...PIN, 'PIN_NOT_FOUND'] }),
  op('PUT', '/external/api/v1/devices/:deviceId/pins/:pin', 'Write a pin', 'apiKey', { body: pinValue, errors: WRITE }),
  op('PATCH', '/external/api/v1/devices/:deviceId/pins', 'Write several pins', 'apiKey', { body: batch, errors: WRITE }),
  op('GET', '/external/api/v1/devices/:deviceId/history/:pin', 'History of a pin', 'apiKey', { query: restPins.historyQuery, errors: PIN }),
  op('POST', '/external/api/v1/devices/:deviceId/notify', 'Send a notification', 'apiKey', { body: notifyBody, errors: DEVICE }),

  op('GET', '/external/api/firmware/:firmwareId', "A device's firmware download (the token its OTA message carried)", 'none', {
    query: downloadQuery,
    errors: ['INVALID_TOKEN', 'FIRMWARE_NOT_FOUND'],
  }),

  op('POST', '/external/api/provision', "A device's first boot: made from the key's template, once per serial", 'none', {
    body: provisionBody,
    ok: 201,
    errors: ['INVALID_PROVISIONING_KEY', 'ALREADY_PROVISIONED', 'QUOTA_EXCEEDED', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'],
  }),

  op('GET', '/external/api/get', 'Read a pin', 'token', { query: simple.pinQuery, errors: ['INVALID_PIN', 'PIN_NOT_FOUND'] }),
  op('GET', '/external/api/update', 'Write a pin', 'token', {
    query: pinAndValue,
    errors: ['INVALID_PIN', 'VALUE_TOO_LARGE', 'PIN_LOCKED'],
  }),
  op('GET', '/external/api/get-all', 'Read every pin', 'token'),
  op('GET', '/external/api/is-online', 'Is the device online', 'token'),
  op('POST', '/external/api/notify', 'Send a notification', 'token', { body: notifyBody }),
  op('POST', '/external/api/batch-update', 'Write several pins', 'token', {
    body: batch,
    errors: ['INVALID_PIN', 'VALUE_TOO_LARGE', 'PIN_LOCKED'],
  }),
];
