import mailscan from '../../layers/mailscan/manifest.ts';
import type { AdversaryMessage } from './messages.ts';
import { queuedJob, type ScanJobRecord, type ScanLogLocation } from './scan-job.ts';
import { targetRuleOf } from './scan-targets.ts';
import { ADVERSARY_TECHNIQUES, type AdversaryTechnique } from './scope.ts';

/**
 * Adversary steps (DESIGN §5): a technique executed by the engine whose scope takes techniques
 * (mailscan's manifest), as one scan of its scan type. The dispatch service claims and runs the
 * job; what the job is (its type, target rule and scope) is decided here, so the dispatch names
 * no engine.
 */
const [ADVERSARY_SCAN_TYPE] = mailscan.scanTypes;

/** The surfaces each technique needs (DESIGN §5): T1589.002 gathers addresses, T1598 looks for phishing ground. */
export function adversaryScope(technique: AdversaryTechnique): Record<string, unknown> {
  return technique === 'T1589.002'
    ? { techniques: [technique], reputation: true, discover: true }
    : { techniques: [technique], reputation: true, leak: true };
}

/** An adversary step's target: a target of the adversary engine's scan type. */
const adversaryTarget = targetRuleOf(ADVERSARY_SCAN_TYPE);

function isTechnique(value: string): value is AdversaryTechnique {
  return (ADVERSARY_TECHNIQUES as readonly string[]).includes(value);
}

/** A fresh queued ScanJob for an adversary step; its scope names the technique (and nothing if unsupported). */
export function jobForAdversaryStep(message: AdversaryMessage, id: string, now: string, log: ScanLogLocation): ScanJobRecord {
  const target = adversaryTarget(message.target);
  return queuedJob({
    id,
    tenant: message.tenant,
    scan_type: ADVERSARY_SCAN_TYPE,
    target: target.ok ? target.value : message.target,
    targets: [],
    scope: isTechnique(message.technique) ? adversaryScope(message.technique) : {},
    source_type: 'adversary',
    schedule_id: null,
    trigger: 'adversary',
    scheduled_time: null,
    created_at: now,
    log,
  });
}

/** Why an adversary step cannot run, or null. */
export function adversaryRefusal(message: AdversaryMessage): string | null {
  if (!isTechnique(message.technique)) return `unsupported technique ${message.technique}`;
  const target = adversaryTarget(message.target);
  return target.ok ? null : `invalid target for an adversary step: ${target.message}`;
}
