import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Request } from './http';
import type { TestUser } from './fixtures';
import { eventually } from './wait';

export interface Mail {
  to: string[];
  /** The raw message, quoted-printable soft line breaks and escapes undone. */
  body: string;
}

export interface Mailbox {
  /** SMTP_URL for a stack that sends here. */
  url: string;
  mails: Mail[];
  /** Mails addressed to `email` (envelope recipients). */
  to(email: string): Mail[];
  close(): Promise<void>;
}

/** Undoes quoted-printable: nodemailer wraps long lines (a verify link) with `=` soft breaks. */
function unquote(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A real SMTP server on a free port that keeps every message it receives. */
export async function startMailbox(): Promise<Mailbox> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let body = '';
      stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body: unquote(body) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    to: (email) => mails.filter((m) => m.to.includes(email)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The token of the newest verify link mailed to `email`. */
export async function verifyToken(mailbox: Mailbox, email: string): Promise<string> {
  return eventually(() => {
    const links = mailbox
      .to(email)
      .flatMap((m) => [...m.body.matchAll(/\/verify-email\?token=([A-Za-z0-9_%-]+)/g)].map((x) => decodeURIComponent(x[1] as string)));
    const token = links.at(-1);
    if (!token) throw new Error(`no verify email to ${email} yet`);
    return token;
  });
}

/** Verifies `user`'s email the way a person does: asks for the link, takes it from the mail, opens it. */
export async function verifyEmail(request: Request, mailbox: Mailbox, user: TestUser): Promise<void> {
  const asked = await request('POST', '/api/v1/auth/verify-email/request', { token: user.token });
  if (asked.status !== 200) throw new Error(`verify request failed: ${asked.status} ${asked.text}`);
  const verified = await request('POST', '/api/v1/auth/verify-email', { body: { token: await verifyToken(mailbox, user.email) } });
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${verified.text}`);
}
