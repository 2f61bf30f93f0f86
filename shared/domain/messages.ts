import * as z from 'zod';

// Built at their first parse, as every object schema in shared/domain (docs/cold-start.md).

/** Fire message: EventBridge Scheduler target input and SQS body (DESIGN §5). */
export const FireMessage = z.lazy(() =>
  z.object({
    kind: z.literal('fire'),
    tenant: z.string(),
    schedule_id: z.string(),
    scheduled_time: z.string(),
    execution_id: z.string(),
  }),
);
export type FireMessage = z.infer<typeof FireMessage>;

/** Scan message from the API: run an existing queued ScanJob (DESIGN §5). */
export const ScanMessage = z.lazy(() =>
  z.object({
    kind: z.literal('scan'),
    tenant: z.string(),
    scan_id: z.string(),
  }),
);
export type ScanMessage = z.infer<typeof ScanMessage>;

/**
 * Adversary step (DESIGN §5): the adversary engine asks for one reconnaissance step. `technique` is
 * any string here: an unsupported one still gets its job, which fails saying so.
 */
export const AdversaryMessage = z.lazy(() =>
  z.object({
    kind: z.literal('adversary'),
    tenant: z.string(),
    run_id: z.string().min(1).max(200),
    step_id: z.string().min(1).max(200),
    technique: z.string().max(100),
    target: z.string().max(2048),
  }),
);
export type AdversaryMessage = z.infer<typeof AdversaryMessage>;

export const QueueMessage = z.lazy(() =>
  z.discriminatedUnion('kind', [FireMessage.unwrap(), ScanMessage.unwrap(), AdversaryMessage.unwrap()]),
);
export type QueueMessage = z.infer<typeof QueueMessage>;
