import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { EmailSender } from '../../ports/notification-channels.ts';

/** The local outbox: one JSON line per message in `<dir>/outbox.jsonl`, for `npm start` without an SMTP server. */
export function makeOutboxEmailSender(dir: string, from: string): EmailSender {
  return {
    async send(message) {
      await mkdir(dir, { recursive: true });
      await appendFile(join(dir, 'outbox.jsonl'), `${JSON.stringify({ from, ...message, at: new Date().toISOString() })}\n`);
    },
  };
}

/** SMTP through nodemailer (locally: a server on loopback, e.g. SMTP_URL=smtp://127.0.0.1:2525). */
export async function makeSmtpEmailSender(smtpUrl: string, from: string): Promise<EmailSender> {
  const { createTransport } = await import('nodemailer');
  const transport = createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
