import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { EmailSender } from '../../ports/notification-channels.ts';

/** Email through SES v2 from the deployment's verified sender (NOTIFICATION_SENDER). */
export function makeSesEmailSender(client: SESv2Client, from: string): EmailSender {
  return {
    async send(message) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: { Subject: { Data: message.subject, Charset: 'UTF-8' }, Body: { Text: { Data: message.text, Charset: 'UTF-8' } } },
          },
        }),
      );
    },
  };
}

export function makeSesClient(): SESv2Client {
  return new SESv2Client({});
}
