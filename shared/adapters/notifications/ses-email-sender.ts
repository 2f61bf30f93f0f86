import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { EmailSender } from '../../ports/notification-channels.ts';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/**
 * Email through SES v2 from the deployment's verified sender (NOTIFICATION_SENDER). The client
 * comes from `client` at the first email ({@link lazySesClient}): most notifications are webhooks,
 * and a cold start that never sends an email never loads the SES client.
 */
export function makeSesEmailSender(client: () => Promise<Pick<SESv2Client, 'send'>>, from: string): EmailSender {
  return {
    async send(message) {
      const ses = await client();
      const { SendEmailCommand } = await import('@aws-sdk/client-sesv2');
      await ses.send(
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

/** The SES v2 client, made at the first email and reused by the warm instance. */
export function lazySesClient(): () => Promise<SESv2Client> {
  let client: Promise<SESv2Client> | undefined;
  return () =>
    (client ??= import('@aws-sdk/client-sesv2').then(
      ({ SESv2Client: Client }) => new Client({ requestHandler: boundedRequestHandler(API_ATTEMPT) }),
    ));
}
