import { mayHoldSecrets } from './detect.ts';
import { uint8s } from '../../../lib/git/chunked-array.ts';
import { isBinary, looksMinified } from './path-guards.ts';

const INSPECTED = 1;
const BINARY = 2;
const MINIFIED = 4;
const MAY_HOLD_SECRETS = 8;

const decoder = new TextDecoder('utf-8', { fatal: false });

/** A blob's text as the rules see it (invalid UTF-8 replaced, never an error). */
export function decodeBlob(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** What the pack's indexing pass learnt of a blob. */
export interface BlobVerdict {
  binary: boolean;
  minified: boolean;
  /** False: the rules find nothing in it, whatever its path (detect.ts, mayHoldSecrets). */
  mayHoldSecrets: boolean;
}

/**
 * The indexing pass resolves every blob once, to hash it (pack-store.ts); `inspect`, its `onBlob`,
 * looks at it then: binary or not, minified or not, and whether any rule could match in it. The
 * scan (scan-blobs.ts) reads a second time only the blobs that may hold a secret, where it used to
 * inflate every blob again (and re-apply its delta) after the walk. Blobs over the blob bound are
 * not looked at (the scan skips them unread); a blob with no verdict is read as before.
 */
export class BlobTriage {
  /** Flags by pack ordinal, one byte an object, chunked (a Map cost ~30 bytes an entry: 60 MB for two million blobs). */
  readonly #verdicts = uint8s();

  constructor(private readonly maxBlobBytes: number) {}

  readonly inspect = (ordinal: number, content: Uint8Array): void => {
    if (content.length > this.maxBlobBytes) return;
    let flags = INSPECTED;
    if (isBinary(content)) flags |= BINARY;
    else {
      const text = decodeBlob(content);
      if (looksMinified(text)) flags |= MINIFIED;
      if (mayHoldSecrets(text)) flags |= MAY_HOLD_SECRETS;
    }
    this.#verdicts.set(ordinal, flags);
  };

  /** The verdict on the blob at `ordinal` in the pack, if the pass gave one. */
  verdict(ordinal: number): BlobVerdict | undefined {
    const flags = this.#verdicts.get(ordinal);
    if (flags === 0) return undefined;
    return { binary: (flags & BINARY) !== 0, minified: (flags & MINIFIED) !== 0, mayHoldSecrets: (flags & MAY_HOLD_SECRETS) !== 0 };
  }
}
