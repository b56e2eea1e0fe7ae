import nodemailer from 'nodemailer';
import type { Config } from '../../common/config';
import { AppError } from '../../common/errors';

export type SendVerifyMail = (to: string, link: string) => Promise<void>;

/**
 * Sends the verify-your-email message (DESIGN §11) through `SMTP_URL`, from `MAIL_FROM`; null when
 * the service sends no email (SMTP_URL unset). When the mail server does not take the message, the
 * request is a 503 naming smtp.
 */
export function createVerifyMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>): SendVerifyMail | null {
  if (!config.SMTP_URL) return null;
  const transport = nodemailer.createTransport(config.SMTP_URL);
  return async (to, link) => {
    try {
      await transport.sendMail({
        from: config.MAIL_FROM,
        to,
        subject: 'Verify your email for Device Data Service',
        text: `Open this link to verify ${to} and receive notification emails:\n\n${link}\n\nThe link works once, for 24 hours. If you did not ask for it, ignore this email.`,
      });
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The mail server did not take the email; try again later', [
        { field: 'dependency', problem: 'smtp' },
      ]);
    }
  };
}
