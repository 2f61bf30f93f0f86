import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { engineReportSchema } from '../lib/report.ts';
import { buildEngineOf } from '../layers/build.ts';
import { allow, awsAccountOn, policy, SELF_READ, type AccessKey } from '../layers/nhiscan/test/helpers/aws-account.ts';
import { startMotoServer } from '../test/helpers/moto-server.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';

// npm run bench:nhi [-- --rounds 7 --policies 20]: the built nhiscan reviews, against moto_server
// with IAM enforcement on, an AWS key whose user has `policies` attached managed policies (one
// statement each, as many as AWS's raised quota allows) and, paired and interleaved
// (bench/paired.ts), the same review of a key with its one inline read policy only. Prints the wall
// time of each (the target: ≤ 3 s for 20 policies) and the paired ratios. The executable is what
// the layer ships: a cold process each run (node start-up, SDK load, the scan).
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, policies: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);
const count = Number(values.policies);

const work = await mkdtemp(join(tmpdir(), 'nhiscan-bench-'));
const moto = await startMotoServer();
try {
  const bin = await buildEngineOf('nhiscan', join(work, 'dist', 'bin', 'nhiscan'));
  const account = await awsAccountOn(moto);
  const arns: string[] = [];
  for (let index = 0; index < count; index += 1)
    arns.push(await account.createPolicy(`p${index}`, policy(allow(`s3:GetObject`, `arn:aws:s3:::bucket-${index}/*`))));
  const heavy = await account.createUser('heavy', { inline: { read: SELF_READ }, attached: arns });
  const light = await account.createUser('light', { inline: { read: SELF_READ } });
  account.iam.destroy();

  const scan = async (name: string, key: AccessKey): Promise<number> => {
    const file = join(work, `${name}.json`);
    await writeFile(file, JSON.stringify({ alias: name, kind: 'aws_access_key', secret: key, allowed_hosts: [] }), { mode: 0o600 });
    const started = performance.now();
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [bin, 'scan', `--credential-file=${file}`, '--', name],
        { env: { PATH: process.env.PATH ?? '', NHISCAN_AWS_ENDPOINT: moto.endpoint, NHISCAN_ALLOW_LOOPBACK: '1' } },
        (error, out) => (error ? reject(new Error(`${name}: ${error.message}`)) : resolve(out)),
      ),
    );
    const ms = performance.now() - started;
    const report = engineReportSchema().parse(JSON.parse(stdout));
    if (report.status !== 'ok') throw new Error(`${name}: ${JSON.stringify(report.errors)}`);
    const read = report.checks.find((check) => check.id === 'nhi.aws.admin_policy')?.detail ?? '';
    if (name === 'heavy' && !read.includes(`${count + 1} policies`)) throw new Error(`heavy read: ${read}`);
    return ms;
  };
  const samples = await interleaved({ heavy: () => scan('heavy', heavy), light: () => scan('light', light) }, rounds);
  process.stdout.write(
    [
      `nhiscan against moto_server (IAM enforcement on), ${rounds} paired rounds after one warm-up, a cold process each:`,
      `  key with ${count} attached policies + 1 inline: ${formatSpread(samples.heavy, ' ms')}  (target ≤ 3000 ms)`,
      `  key with 1 inline policy:                 ${formatSpread(samples.light, ' ms')}`,
      `  paired ratio heavy / light:               ${formatSpread(pairedRatios(samples.heavy, samples.light), '', 2)}`,
      '',
    ].join('\n'),
  );
  if (Math.max(...samples.heavy) > 3000) process.exitCode = 1;
} finally {
  await moto.close();
  await rm(work, { recursive: true, force: true });
}
