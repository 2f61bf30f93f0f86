import { DispatchFailedError } from '../../domain/errors.ts';
import { QueueMessage } from '../../domain/messages.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MessageQueue } from '../../ports/message-queue.ts';
import type { ResourceClass } from '../../domain/resource-class.ts';

/** SQS caps a visibility timeout at 12 hours; the local queue keeps the same bound. */
const MAX_VISIBILITY_TIMEOUT_MS = 12 * 60 * 60 * 1_000;

/** Constructor options of {@link LocalQueue}. */
export interface LocalQueueOptions {
  /** Used in message ids and receipt handles, so messages of two queues never look alike. */
  name: string;
  /** Drives visibility: nothing reappears until this clock passes the timeout. */
  clock: Clock;
  visibilityTimeoutMs: number;
  /** Another visibility timeout for messages of these classes (the local scan queue: 6 × each class's function timeout, as each class's queue has in AWS). */
  visibilityTimeoutMsByClass?: Partial<Record<ResourceClass, number>>;
  /** Receives after which a message moves to `deadLetterQueue`; requires one, like SQS's redrive policy. */
  maxReceiveCount?: number;
  deadLetterQueue?: LocalQueue;
}

/** One delivery of a message, as a consumer sees it. */
export interface ReceivedMessage {
  messageId: string;
  /** Valid until the message is received again; delete and changeVisibility need the latest one. */
  receiptHandle: string;
  body: string;
  /** How many times the message has been received, this delivery included. */
  receiveCount: number;
  sentAt: Date;
  /**
   * The resource class the sender named (DESIGN §11): in AWS each class has its own queue; locally
   * one queue carries every class and the consumer gives each message its class's function timeout.
   */
  resourceClass: ResourceClass;
}

/** Counts like SQS's ApproximateNumberOfMessages / ...NotVisible, but exact. */
export interface LocalQueueStats {
  visible: number;
  inFlight: number;
}

interface StoredMessage {
  messageId: string;
  body: string;
  resourceClass: ResourceClass;
  sentAt: Date;
  sequence: number;
  receiveCount: number;
  visibleAt: number;
  receiptHandle: string | null;
}

/**
 * An in-process queue with the SQS semantics the dispatcher relies on: a received message is
 * hidden for the visibility timeout and redelivered after it unless deleted; every receive issues a
 * fresh receipt handle and retires the previous one; a message received more than
 * `maxReceiveCount` times moves to the dead-letter queue (SQS's redrive). Visible messages come out
 * oldest-visible first, which SQS standard queues do not promise but which keeps tests exact.
 *
 * Limits: held in memory only, so stopping the local server loses whatever is queued (the table
 * survives, and the local scheduler fires again at its next time); no delay queues, message
 * attributes, FIFO groups or retention period.
 */
export class LocalQueue implements MessageQueue {
  readonly name: string;
  readonly #clock: Clock;
  readonly #visibilityTimeoutMs: number;
  readonly #visibilityTimeoutMsByClass: Partial<Record<ResourceClass, number>>;
  readonly #maxReceiveCount: number | undefined;
  readonly #deadLetterQueue: LocalQueue | undefined;
  readonly #messages = new Map<string, StoredMessage>();
  /** Only the latest handle of each message is here, which is what retires the older ones. */
  readonly #receiptIndex = new Map<string, string>();
  #ids = 0;
  #sequence = 0;
  #receipts = 0;
  #refusing: string | null = null;

  constructor(options: LocalQueueOptions) {
    checkVisibilityTimeout(options.visibilityTimeoutMs);
    for (const timeoutMs of Object.values(options.visibilityTimeoutMsByClass ?? {})) checkVisibilityTimeout(timeoutMs);
    if (options.maxReceiveCount !== undefined) {
      if (!Number.isInteger(options.maxReceiveCount) || options.maxReceiveCount < 1) {
        throw new RangeError('maxReceiveCount must be a positive integer');
      }
      if (options.deadLetterQueue === undefined) throw new RangeError('maxReceiveCount needs a deadLetterQueue');
    }
    this.name = options.name;
    this.#clock = options.clock;
    this.#visibilityTimeoutMs = options.visibilityTimeoutMs;
    this.#visibilityTimeoutMsByClass = options.visibilityTimeoutMsByClass ?? {};
    this.#maxReceiveCount = options.maxReceiveCount;
    this.#deadLetterQueue = options.deadLetterQueue;
  }

  /** Validate and enqueue; throws DispatchFailedError while refusing (see setRefusing). */
  async send(message: QueueMessage, resourceClass: ResourceClass = 'standard'): Promise<void> {
    const body = JSON.stringify(QueueMessage.parse(message));
    this.sendRaw(body, resourceClass);
  }

  /**
   * Enqueue a body as-is, unvalidated: how tests put a poison message on the queue. Returns the
   * message id. Throws DispatchFailedError while refusing.
   */
  sendRaw(body: string, resourceClass: ResourceClass = 'standard'): string {
    if (this.#refusing !== null) throw new DispatchFailedError(`local queue ${this.name} refused the message: ${this.#refusing}`);
    const messageId = `${this.name}-${++this.#ids}`;
    this.#store({ messageId, body, sentAt: this.#clock.now(), resourceClass });
    return messageId;
  }

  /**
   * Up to `maxMessages` (1–10, as in SQS) visible messages, each hidden until now + the visibility
   * timeout. A message whose receive count would pass maxReceiveCount goes to the DLQ instead.
   */
  receive(maxMessages = 10): ReceivedMessage[] {
    if (!Number.isInteger(maxMessages) || maxMessages < 1 || maxMessages > 10) {
      throw new RangeError('maxMessages must be an integer from 1 to 10');
    }
    const now = this.#clock.now().getTime();
    const visible = [...this.#messages.values()]
      .filter((message) => message.visibleAt <= now)
      .sort((a, b) => a.visibleAt - b.visibleAt || a.sequence - b.sequence);
    const received: ReceivedMessage[] = [];
    for (const message of visible) {
      if (received.length === maxMessages) break;
      const deadLetterQueue = this.#deadLetterQueue;
      if (deadLetterQueue !== undefined && this.#maxReceiveCount !== undefined && message.receiveCount >= this.#maxReceiveCount) {
        this.#remove(message);
        deadLetterQueue.#store(message);
        continue;
      }
      message.receiveCount += 1;
      if (message.receiptHandle !== null) this.#receiptIndex.delete(message.receiptHandle);
      message.receiptHandle = `${this.name}-receipt-${++this.#receipts}`;
      this.#receiptIndex.set(message.receiptHandle, message.messageId);
      message.visibleAt = now + (this.#visibilityTimeoutMsByClass[message.resourceClass] ?? this.#visibilityTimeoutMs);
      const { messageId, receiptHandle, body, receiveCount, sentAt, resourceClass } = message;
      received.push({ messageId, receiptHandle, body, receiveCount, sentAt: new Date(sentAt), resourceClass });
    }
    return received;
  }

  /** Acknowledge a message. False when the handle is unknown or has been superseded by a later receive. */
  delete(receiptHandle: string): boolean {
    const message = this.#byReceipt(receiptHandle);
    if (message === undefined) return false;
    this.#remove(message);
    return true;
  }

  /**
   * Hide an in-flight message for `timeoutMs` from now (0 makes it visible at once). False when the
   * handle is stale or the message is no longer in flight, where SQS answers MessageNotInflight.
   */
  changeVisibility(receiptHandle: string, timeoutMs: number): boolean {
    checkVisibilityTimeout(timeoutMs);
    const message = this.#byReceipt(receiptHandle);
    const now = this.#clock.now().getTime();
    if (message === undefined || message.visibleAt <= now) return false;
    message.visibleAt = now + timeoutMs;
    return true;
  }

  stats(): LocalQueueStats {
    const now = this.#clock.now().getTime();
    let visible = 0;
    for (const message of this.#messages.values()) if (message.visibleAt <= now) visible += 1;
    return { visible, inFlight: this.#messages.size - visible };
  }

  /**
   * Fault injection for tests and local chaos runs: while a reason is set, send and sendRaw throw
   * DispatchFailedError and store nothing, as SQS does when it refuses. `null` restores normal
   * service. Redrive into this queue as a DLQ is not affected.
   */
  setRefusing(reason: string | null): void {
    this.#refusing = reason;
  }

  /** Enqueue a new message, or one redriven from a source queue: id, body, sent time and class are kept. */
  #store(message: Pick<StoredMessage, 'messageId' | 'body' | 'sentAt' | 'resourceClass'>): void {
    this.#messages.set(message.messageId, {
      messageId: message.messageId,
      body: message.body,
      sentAt: message.sentAt,
      resourceClass: message.resourceClass,
      sequence: ++this.#sequence,
      receiveCount: 0,
      visibleAt: this.#clock.now().getTime(),
      receiptHandle: null,
    });
  }

  #byReceipt(receiptHandle: string): StoredMessage | undefined {
    const messageId = this.#receiptIndex.get(receiptHandle);
    return messageId === undefined ? undefined : this.#messages.get(messageId);
  }

  #remove(message: StoredMessage): void {
    this.#messages.delete(message.messageId);
    if (message.receiptHandle !== null) this.#receiptIndex.delete(message.receiptHandle);
  }
}

function checkVisibilityTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_VISIBILITY_TIMEOUT_MS) {
    throw new RangeError('a visibility timeout is between 0 and 12 hours');
  }
}
