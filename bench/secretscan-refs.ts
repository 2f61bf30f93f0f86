/**
 * secretscan against a server advertising millions of refs (issue 33 item 7: "6 M refs reached
 * 1.2 GB"): `npx tsx bench/secretscan-refs.ts [--refs 6000000] [--runs 3] [--timeout 60]`.
 * A loopback smart-HTTP git server advertises HEAD, the branch and then N tags, and answers the
 * fetch with a valid one-commit pack (one file). The built engine scans it as the runner starts it;
 * each run prints the engine's peak RSS, its wall time against its deadline and the report's
 * status, so a run is judged on "under 256 MB and within the deadline + 2 s" and on telling the truth.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { deflateSync } from 'node:zlib';
import { FLUSH, pktLine } from '../lib/git/pkt-line.ts';
import { objectHeader, objectId } from '../layers/secretscan/test/pack-writer.ts';
import { scanWithEngine } from '../test/helpers/built-engine.ts';

const { values } = parseArgs({
  options: {
    refs: { type: 'string', default: '6000000' },
    runs: { type: 'string', default: '3' },
    timeout: { type: 'string', default: '60' },
  },
});
const REFS = Number(values.refs);
const RUNS = Number(values.runs);
const TIMEOUT = Number(values.timeout);
const MIB = 1024 * 1024;

const pkt = pktLine;

/** commit → tree → README.md: a repository with nothing to find. */
function smallPack(): { pack: Buffer; tip: string } {
  const blob = Buffer.from('# a repository with many tags\n', 'latin1');
  const tree = Buffer.concat([Buffer.from('100644 README.md\0', 'latin1'), Buffer.from(objectId('blob', blob), 'hex')]);
  const commit = Buffer.from(
    `tree ${objectId('tree', tree)}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\nfirst\n`,
    'latin1',
  );
  const body = Buffer.concat([
    Buffer.from('PACK', 'latin1'),
    Buffer.from([0, 0, 0, 2, 0, 0, 0, 3]),
    objectHeader(1, commit.length),
    deflateSync(commit),
    objectHeader(2, tree.length),
    deflateSync(tree),
    objectHeader(3, blob.length),
    deflateSync(blob),
  ]);
  return { pack: Buffer.concat([body, createHash('sha1').update(body).digest()]), tip: objectId('commit', commit) };
}

const { pack, tip } = smallPack();
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/many.git/info/refs')) {
    res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
    res.write(Buffer.concat([pkt('# service=git-upload-pack\n'), FLUSH]));
    res.write(pkt(`${tip} HEAD\0side-band-64k ofs-delta shallow no-progress symref=HEAD:refs/heads/main\n`));
    res.write(pkt(`${tip} refs/heads/main\n`));
    // Written as the client reads it: the server never holds the whole advertisement.
    let sent = 0;
    const more = (): void => {
      while (sent < REFS) {
        const lines: Buffer[] = [];
        for (let i = 0; i < 10_000 && sent < REFS; i++, sent++)
          lines.push(pkt(`${sent.toString(16).padStart(40, '0')} refs/tags/v${sent}\n`));
        if (!res.write(Buffer.concat(lines))) {
          res.once('drain', more);
          return;
        }
      }
      res.end(FLUSH);
    };
    more();
    return;
  }
  if (req.method === 'POST' && req.url === '/many.git/git-upload-pack') {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
      res.end(Buffer.concat([pkt('NAK\n'), pkt(Buffer.concat([Buffer.from([1]), pack])), FLUSH]));
    });
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/many.git`;

console.log(`${REFS.toLocaleString('en')} advertised refs (${((REFS * 70) / MIB).toFixed(0)} MiB of advertisement), deadline ${TIMEOUT} s`);
try {
  for (let run = 1; run <= RUNS; run++) {
    const { run: result, report } = await scanWithEngine(
      'secretscan',
      url,
      {},
      { timeoutSeconds: TIMEOUT, killAfterMs: (TIMEOUT + 30) * 1000 },
    );
    const statuses = [...new Set(report.checks.map((check) => check.status))].join(', ');
    console.log(
      `run ${run}: peak RSS ${(result.maxRssKiB / 1024).toFixed(0)} MiB, wall ${(result.wallMs / 1000).toFixed(1)} s, report ${report.status} (checks: ${statuses})${report.errors[0] ? `; ${report.errors[0].message}` : ''}`,
    );
  }
} finally {
  server.close();
}
