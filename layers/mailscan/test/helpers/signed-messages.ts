/**
 * Messages signed and sealed by dkimpy (python3-dkim), an implementation independent of mailauth,
 * with keys generated at test time and published through the test DNS server's zone.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const helper = fileURLToPath(new URL('./dkimpy.py', import.meta.url));
/** Debian's python3-dkim lives in the system interpreter, which may not be the first python3 on PATH. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

export interface TestKeys {
  /** Private keys as dkimpy takes them: PEM for RSA, base64 of the 32-byte seed for Ed25519. */
  rsa: string;
  ed25519: string;
  /** TXT record values by owner name (`<selector>._domainkey.<domain>`). */
  records: Record<string, string>;
  /** Zone text for the test DNS server. */
  zone: string;
}

/** One RSA-2048 and one Ed25519 key, published under selectors of signer.test and fwd1..3.test. */
export function makeTestKeys(): TestKeys {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ed = generateKeyPairSync('ed25519');
  const rsaPublic = rsa.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const edJwk = ed.privateKey.export({ format: 'jwk' });
  const records: Record<string, string> = {
    'rsa._domainkey.signer.test': `v=DKIM1; k=rsa; p=${rsaPublic}`,
    'ed._domainkey.signer.test': `v=DKIM1; k=ed25519; p=${Buffer.from(edJwk.x ?? '', 'base64url').toString('base64')}`,
    'arc._domainkey.fwd1.test': `v=DKIM1; k=rsa; p=${rsaPublic}`,
    'arc._domainkey.fwd2.test': `v=DKIM1; k=rsa; p=${rsaPublic}`,
    'arc._domainkey.fwd3.test': `v=DKIM1; k=rsa; p=${rsaPublic}`,
  };
  const zone = [
    '$TTL 300',
    ...['signer.test', 'fwd1.test', 'fwd2.test', 'fwd3.test'].flatMap((domain) => [
      `${domain}. IN SOA ns.${domain}. hostmaster.${domain}. ( 1 3600 600 86400 300 )`,
      `${domain}. IN TXT "v=spf1 -all"`,
    ]),
    ...Object.entries(records).map(
      ([name, value]) =>
        `${name}. IN TXT ${value
          .match(/.{1,200}/g)
          ?.map((chunk) => `"${chunk}"`)
          .join(' ')}`,
    ),
  ].join('\n');
  return {
    rsa: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    ed25519: Buffer.from(edJwk.d ?? '', 'base64url').toString('base64'),
    records,
    zone,
  };
}

type Request =
  | {
      op: 'sign';
      message: Buffer;
      selector: string;
      domain: string;
      key: string;
      algorithm?: string;
      canonicalize?: [string, string];
      length?: boolean;
      include_headers?: string[];
    }
  | { op: 'arc_sign'; message: Buffer; selector: string; domain: string; key: string; srv_id: string }
  | { op: 'verify'; message: Buffer; keys: Record<string, string> };

/**
 * One long-lived dkimpy process per test file, answering requests in order: importing dkim costs
 * seconds on a loaded machine, signing and verifying milliseconds.
 */
class Dkimpy {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly waiting: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  private buffered = '';

  call<T>(request: Request): Promise<T> {
    const child = this.start();
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve: resolve as (value: unknown) => void, reject });
      child.stdin.write(`${JSON.stringify({ ...request, message: request.message.toString('base64') })}\n`);
    });
  }

  close(): void {
    this.child?.stdin.end();
    this.child = null;
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child !== null) return this.child;
    const child = spawn(SYSTEM_PYTHON, [helper], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString();
      let newline = this.buffered.indexOf('\n');
      while (newline !== -1) {
        const reply = JSON.parse(this.buffered.slice(0, newline)) as { error?: string };
        this.buffered = this.buffered.slice(newline + 1);
        const waiter = this.waiting.shift();
        if (reply.error !== undefined) waiter?.reject(new Error(`dkimpy: ${reply.error}`));
        else waiter?.resolve(reply);
        newline = this.buffered.indexOf('\n');
      }
    });
    child.on('exit', (code) => {
      for (const waiter of this.waiting.splice(0)) waiter.reject(new Error(`dkimpy exited ${code}: ${stderr}`));
    });
    this.child = child;
    return child;
  }
}

const dkimpy = new Dkimpy();

/** Ends the dkimpy process (call in afterAll). */
export function closeDkimpy(): void {
  dkimpy.close();
}

function callDkimpy<T>(request: Request): Promise<T> {
  return dkimpy.call<T>(request);
}

export async function dkimSign(message: Buffer, options: Omit<Extract<Request, { op: 'sign' }>, 'op' | 'message'>): Promise<Buffer> {
  const { message: signed } = await callDkimpy<{ message: string }>({ op: 'sign', message, ...options });
  return Buffer.from(signed, 'base64');
}

/** Adds the intermediary's Authentication-Results (with its ARC verdict) and seals with dkimpy. */
export async function arcSeal(message: Buffer, domain: string, key: string, arcVerdict: 'none' | 'pass' | 'fail'): Promise<Buffer> {
  const results = `Authentication-Results: ${domain}; dkim=pass header.d=signer.test${arcVerdict === 'none' ? '' : `; arc=${arcVerdict}`}\r\n`;
  const { message: sealed } = await callDkimpy<{ message: string }>({
    op: 'arc_sign',
    message: Buffer.concat([Buffer.from(results), message]),
    selector: 'arc',
    domain,
    key,
    srv_id: domain,
  });
  return Buffer.from(sealed, 'base64');
}

/** dkimpy's verdicts: one per DKIM-Signature (in header order) and the ARC chain's cv. */
export function dkimpyVerify(
  message: Buffer,
  keys: Record<string, string>,
): Promise<{ dkim: boolean[]; arc: string; arc_comment: string }> {
  return callDkimpy({ op: 'verify', message, keys });
}

export const BASE_MESSAGE = Buffer.from(
  [
    'Received: from mail.signer.test (mail.signer.test [203.0.113.10]) by mx.example.com with ESMTPS id 4AbC; Mon, 23 Nov 2026 09:00:05 +0000',
    'Received: from localhost (localhost [127.0.0.1]) by mail.signer.test with ESMTP id 77x; Mon, 23 Nov 2026 09:00:01 +0000',
    'From: Alice <alice@signer.test>',
    'To: Bob <bob@example.com>',
    'Subject: Quarterly numbers',
    'Date: Mon, 23 Nov 2026 09:00:00 +0000',
    'Message-ID: <q3-numbers@signer.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello Bob,',
    '',
    'the numbers are attached.   ',
    '',
    '',
  ].join('\r\n'),
);
