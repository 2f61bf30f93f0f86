import * as z from 'zod';

/** Fire message: EventBridge Scheduler target input and SQS body (DESIGN §5). */
export const FireMessage = z.object({
  kind: z.literal('fire'),
  tenant: z.string(),
  schedule_id: z.string(),
  scheduled_time: z.string(),
  execution_id: z.string(),
});
export type FireMessage = z.infer<typeof FireMessage>;

/** Scan message from the API: run an existing queued ScanJob (DESIGN §5). */
export const ScanMessage = z.object({
  kind: z.literal('scan'),
  tenant: z.string(),
  scan_id: z.string(),
});
export type ScanMessage = z.infer<typeof ScanMessage>;

export const QueueMessage = z.discriminatedUnion('kind', [FireMessage, ScanMessage]);
export type QueueMessage = z.infer<typeof QueueMessage>;
