import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/**
 * `npm start`'s answer to a scrolled-away sign-in link: each line typed on its terminal (Enter, or
 * `link`) prints a fresh one-time link. Lines are read only from a terminal, so a service started
 * with stdin from a pipe or /dev/null is left alone.
 */
export function offerSignInLinks(input: Readable, output: Writable, signInUrl: () => Promise<string>): () => void {
  const lines = createInterface({ input, terminal: false });
  lines.on('line', (line) => {
    const word = line.trim().toLowerCase();
    if (word !== '' && word !== 'link') {
      output.write('Press Enter for a new sign-in link.\n');
      return;
    }
    signInUrl().then(
      (url) => output.write(`\nSign-in link (works once, admin of tenant "local"):\n  ${url}\n\n`),
      (error: unknown) => output.write(`could not make a sign-in link: ${String(error)}\n`),
    );
  });
  return () => lines.close();
}
