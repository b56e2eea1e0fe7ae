import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack, type Stack } from '../helpers/stack';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startMailbox, verifyEmail, type Mailbox } from '../helpers/mailbox';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let mailbox: Mailbox;
let push: Server;
const pushes: { id: string; message: string }[] = [];
let pushStatus = 200;

function listen(server: { listen(port: number, host: string, cb: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

beforeAll(async () => {
  mailbox = await startMailbox();
  push = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (pushStatus === 200) pushes.push(JSON.parse(body) as { id: string; message: string });
      res.statusCode = pushStatus;
      res.end();
    });
  });
  await listen(push);
  stack = await startStack({
    worker: true,
    overrides: {
      SMTP_URL: mailbox.url,
      PUSH_WEBHOOK_URL: `http://127.0.0.1:${(push.address() as AddressInfo).port}/hook`,
    },
  });
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await mailbox.close();
  await new Promise<void>((r) => push.close(() => r()));
});

async function thresholdRule(owner: TestUser, projectId: string, deviceId: string, channels: string[]): Promise<void> {
  const res = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId, pin: 2, condition: 'gt', threshold: 30, message: 'Boiler at {value} degrees', channels },
  });
  expect(res.status).toBe(201);
}

describe('notification channels', () => {
  it('emails every project member (verified) and posts the record to the push receiver, with {value} filled in', async () => {
    const owner = await registerUser(stack.request);
    const member = await registerUser(stack.request);
    await verifyEmail(stack.request, mailbox, owner);
    await verifyEmail(stack.request, mailbox, member);
    const projectId = (await createProject(stack.request, owner)).id;
    await addMember(stack.request, owner, projectId, member, 'viewer');
    const device = await createDevice(stack.request, owner, projectId);
    await thresholdRule(owner, projectId, device.id, ['inApp', 'email', 'push']);

    await stack.request('POST', `/api/v1/data/${device.id}/2`, { token: owner.token, body: { value: '31.5' } });

    const mail = await eventually(() => {
      const found = mailbox.mails.find((m) => m.body.includes('Boiler at 31.5 degrees'));
      if (!found) throw new Error('no email yet');
      return found;
    });
    expect(mail.to.sort()).toEqual([owner.email, member.email].sort());
    const pushed = await eventually(() => {
      const found = pushes.find((p) => p.message === 'Boiler at 31.5 degrees');
      if (!found) throw new Error('no push yet');
      return found;
    });
    const stored = JSON.parse((await stack.redis.get(keys.notification(pushed.id))) as string);
    expect(stored).toMatchObject({ id: pushed.id, type: 'threshold', message: 'Boiler at 31.5 degrees', read: false });
  });

  it('still stores the record and sends the email while the push receiver keeps failing', async () => {
    pushStatus = 503;
    try {
      const owner = await registerUser(stack.request);
      await verifyEmail(stack.request, mailbox, owner);
      const projectId = (await createProject(stack.request, owner)).id;
      const device = await createDevice(stack.request, owner, projectId);
      await thresholdRule(owner, projectId, device.id, ['email', 'push']);
      await stack.request('POST', `/api/v1/data/${device.id}/2`, { token: owner.token, body: { value: '99' } });

      await eventually(() => {
        if (!mailbox.mails.some((m) => m.body.includes('Boiler at 99 degrees'))) throw new Error('no email yet');
      });
      await eventually(async () => expect(await stack.redis.zcard(keys.projectNotifications(projectId))).toBe(1));
      expect(pushes.some((p) => p.message === 'Boiler at 99 degrees')).toBe(false);
    } finally {
      pushStatus = 200;
    }
  });
});
