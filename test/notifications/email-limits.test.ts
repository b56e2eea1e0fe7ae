/**
 * The service is no open mail relay (DESIGN §11, docs/limits.md "Email"): an address gets
 * notification email only once its owner verified it through the link mailed to it; an account's
 * rules send at most EMAIL_DAILY_CAP_PER_ACCOUNT emails a day and one per rule and device a minute.
 * A real SMTP server receives the mail; Redis and Temporal are the run's.
 */
import { randomUUID } from 'node:crypto';
import { createChannelActivities } from '../../activities/channels';
import { createLogger } from '../../common/logger';
import type { NotificationRecord } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startMailbox, verifyEmail, verifyToken, type Mailbox } from '../helpers/mailbox';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

const DAILY_CAP = 2;

let stack: Stack;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  stack = await startStack({
    worker: true,
    overrides: { SMTP_URL: mailbox.url, EMAIL_DAILY_CAP_PER_ACCOUNT: String(DAILY_CAP), PUBLIC_URL: 'https://console.example.com/' },
  });
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await mailbox.close();
});

const me = async (user: TestUser) => (await stack.request('GET', '/api/v1/auth/me', { token: user.token })).body.data;

test('verify flow: the link mailed to the caller verifies their address once; one request a minute', async () => {
  const user = await registerUser(stack.request);
  expect(await me(user)).toMatchObject({ email: user.email, emailVerified: false });
  const login = await stack.request('POST', '/api/v1/auth/login', { body: { email: user.email, password: 'correct horse battery' } });
  expect(login.body.data.user).toMatchObject({ emailVerified: false });

  const asked = await stack.request('POST', '/api/v1/auth/verify-email/request', { token: user.token });
  expect(asked.status).toBe(200);
  expect(asked.body.data).toMatchObject({ email: user.email });
  const again = await stack.request('POST', '/api/v1/auth/verify-email/request', { token: user.token });
  expect(again.status).toBe(429);
  expect(again.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await stack.request('POST', '/api/v1/auth/verify-email/request')).status).toBe(401);

  const token = await verifyToken(mailbox, user.email);
  expect(mailbox.to(user.email).at(-1)?.body).toContain(`https://console.example.com/verify-email?token=${token}`);
  // Only its hash is stored.
  expect(await stack.redis.exists(`email-verify:${token}`)).toBe(0);

  const wrong = await stack.request('POST', '/api/v1/auth/verify-email', { body: { token: `${token}x` } });
  expect(wrong.status).toBe(400);
  expect(wrong.body.error.details).toEqual([{ field: 'body.token', problem: 'unknown, used or expired' }]);
  const verified = await stack.request('POST', '/api/v1/auth/verify-email', { body: { token } });
  expect(verified.status).toBe(200);
  expect(verified.body.data).toEqual({ id: user.id, email: user.email, emailVerified: true });
  expect(await me(user)).toMatchObject({ emailVerified: true });
  expect((await stack.request('POST', '/api/v1/auth/verify-email', { body: { token } })).status).toBe(400);
  expect((await stack.request('POST', '/api/v1/auth/verify-email/request', { token: user.token })).status).toBe(409);

  // A changed address is unverified again (the verified one is remembered, not a flag).
  await stack.redis.hset(keys.user(user.id), 'email', `changed-${user.email}`);
  expect(await me(user)).toMatchObject({ emailVerified: false });
});

test('an email rule mails the verified members only; the record is stored for everyone', async () => {
  const owner = await registerUser(stack.request);
  const verifiedMember = await registerUser(stack.request);
  const unverifiedMember = await registerUser(stack.request);
  await verifyEmail(stack.request, mailbox, owner);
  await verifyEmail(stack.request, mailbox, verifiedMember);
  const projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, verifiedMember, 'viewer');
  await addMember(stack.request, owner, projectId, unverifiedMember, 'viewer');
  const device = await createDevice(stack.request, owner, projectId);
  const rule = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: {
      projectId,
      deviceId: device.id,
      pin: 2,
      condition: 'gt',
      threshold: 30,
      message: `Relay test ${projectId} {value}`,
      channels: ['inApp', 'email'],
    },
  });
  expect(rule.status).toBe(201);
  await stack.request('POST', `/api/v1/data/${device.id}/2`, { token: owner.token, body: { value: '31' } });

  const mail = await eventually(() => {
    const found = mailbox.mails.find((m) => m.body.includes(`Relay test ${projectId} 31`));
    if (!found) throw new Error('no email yet');
    return found;
  });
  expect(mail.to.sort()).toEqual([owner.email, verifiedMember.email].sort());
  const listed = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}`, { token: unverifiedMember.token });
  expect(listed.body.data.total).toBe(1);
});

describe('the email activity', () => {
  const logger = createLogger('silent', 'test');

  async function verifiedProject(): Promise<{ owner: TestUser; projectId: string }> {
    const owner = await registerUser(stack.request);
    await verifyEmail(stack.request, mailbox, owner);
    return { owner, projectId: (await createProject(stack.request, owner)).id };
  }

  function notification(projectId: string, ruleId: string, deviceId: string): NotificationRecord {
    return {
      id: randomUUID(),
      projectId,
      deviceId,
      ruleId,
      type: 'threshold',
      title: 'Threshold',
      message: `limit test ${randomUUID()}`,
      priority: 'normal',
      channels: ['email'],
      read: false,
      createdAt: new Date().toISOString(),
    };
  }

  const channels = () => createChannelActivities({ redis: stack.redis, logger, smtpUrl: mailbox.url, emailDailyCap: DAILY_CAP });
  const delivered = (record: NotificationRecord) => mailbox.mails.filter((m) => m.body.includes(record.message)).length;

  test('one email per rule and device a minute; a retry of the admitted one still sends', async () => {
    const { projectId } = await verifiedProject();
    const [rule, device, otherDevice] = [randomUUID(), randomUUID(), randomUUID()];
    const first = notification(projectId, rule, device);
    const send = channels();
    expect(await send.sendNotificationEmail({ record: first })).toBe('sent');
    const second = notification(projectId, rule, device);
    expect(await send.sendNotificationEmail({ record: second })).toBe('throttled');
    expect(await send.sendNotificationEmail({ record: first })).toBe('sent');
    const elsewhere = notification(projectId, rule, otherDevice);
    expect(await send.sendNotificationEmail({ record: elsewhere })).toBe('sent');
    await sleep(300);
    expect([delivered(first), delivered(second), delivered(elsewhere)]).toEqual([2, 0, 1]);
  });

  test("at most EMAIL_DAILY_CAP_PER_ACCOUNT emails a day for one account's rules, across its projects", async () => {
    const { owner, projectId } = await verifiedProject();
    const otherProject = (await createProject(stack.request, owner, 'Second')).id;
    const send = channels();
    const records = [
      notification(projectId, randomUUID(), randomUUID()),
      notification(otherProject, randomUUID(), randomUUID()),
      notification(projectId, randomUUID(), randomUUID()),
    ];
    const outcomes = [];
    for (const record of records) outcomes.push(await send.sendNotificationEmail({ record }));
    expect(outcomes).toEqual(['sent', 'sent', 'capped']);
    // Another account is not held back by this one's cap.
    const fresh = await verifiedProject();
    expect(await send.sendNotificationEmail({ record: notification(fresh.projectId, randomUUID(), randomUUID()) })).toBe('sent');
  });

  test('a project with no verified member sends nothing and is no error', async () => {
    const owner = await registerUser(stack.request);
    const projectId = (await createProject(stack.request, owner)).id;
    const record = notification(projectId, randomUUID(), randomUUID());
    expect(await channels().sendNotificationEmail({ record })).toBe('no-recipients');
    await sleep(300);
    expect(delivered(record)).toBe(0);
  });
});
