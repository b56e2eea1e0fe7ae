/**
 * The console's part of email verification (DESIGN §11): the account screen shows whether the
 * address is verified and mails the link; the link's page verifies it, signed in or not.
 */
import type { Page } from 'playwright-core';
import { type Browser, openBrowser, signIn } from '../helpers/browser';
import { registerUser } from '../helpers/fixtures';
import { startMailbox, verifyToken, type Mailbox } from '../helpers/mailbox';
import { type Stack, startStack } from '../helpers/stack';

jest.setTimeout(120_000);

let stack: Stack;
let mailbox: Mailbox;
let browser: Browser | null = null;

beforeAll(async () => {
  mailbox = await startMailbox();
  stack = await startStack({ overrides: { SMTP_URL: mailbox.url } });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mailbox?.close();
});

async function page(): Promise<Page> {
  browser ??= await openBrowser();
  return browser.page;
}

test('the account screen mails a verify link; opening it verifies the address', async () => {
  const user = await registerUser(stack.request);
  const p = await page();
  await signIn(p, stack.baseUrl, user);
  await p.goto(`${stack.baseUrl}/account`);
  await p.getByTestId('email-unverified').waitFor();
  await p.getByRole('button', { name: 'Verify your email' }).click();
  await p.getByText(`Link sent to ${user.email}`).waitFor();

  const token = await verifyToken(mailbox, user.email);
  const link = mailbox
    .to(user.email)
    .at(-1)
    ?.body.match(/https?:\/\/\S+\/verify-email\?token=\S+/)?.[0];
  expect(link).toBe(`${stack.baseUrl}/verify-email?token=${token}`);
  await p.goto(link as string);
  await p.getByText(`${user.email} is verified`).waitFor();

  await p.goto(`${stack.baseUrl}/account`);
  await p.getByTestId('email-verified').waitFor();
  // The link works once.
  await p.goto(link as string);
  await p.getByText('unknown, used or expired').waitFor();
});
