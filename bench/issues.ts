/**
 * Issues at scale (docs/issues.md), on dynalite:
 * 1. listing and filtering a tenant of 100,000 issues against a tenant of 1,000 in the same table,
 *    the same query on each, paired and interleaved: min/median/max of the per-pair ratio;
 * 2. a scan that touches 1,000 issues through the local runtime: DynamoDB requests and time, on
 *    the fire that opens them and on the fire that sees them again.
 *
 * npm run bench:issues [-- --big 100000 --small 1000 --rounds 30]
 */
import { parseArgs } from 'node:util';
import { makeDynamoDbIssueRepository } from '../shared/adapters/dynamodb/dynamodb-issue-repository.ts';
import type { IssueFilter } from '../shared/ports/issue-repository.ts';
import { DynaliteTables } from '../test/helpers/dynalite-tables.ts';
import { issueOf } from '../test/helpers/issue-records.ts';
import { scheduleBody, startTestService } from '../test/helpers/local-service.ts';
import { ScriptedRunner, finding } from '../test/helpers/test-runners.ts';
import { ms, percentile, timed } from './stats.ts';

const { values } = parseArgs({
  options: {
    big: { type: 'string', default: '100000' },
    small: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '30' },
  },
});
const BIG = Number(values.big);
const SMALL = Number(values.small);
const ROUNDS = Number(values.rounds);
const NOW = '2026-06-01T00:00:00.000Z';
async function listing() {
  const tables = new DynaliteTables();
  const { client, tableName } = await tables.freshTable();
  const repo = makeDynamoDbIssueRepository(client, tableName);
  const loadStart = performance.now();
  for (const [tenant, count] of [
    ['small', SMALL],
    ['big', BIG],
  ] as const) {
    for (let start = 0; start < count; start += 1000) {
      await repo.save(
        tenant,
        Array.from({ length: Math.min(1000, count - start) }, (_, i) => issueOf(tenant, start + i, count)),
      );
    }
  }
  console.log(`loaded ${SMALL} + ${BIG} issues in ${ms(performance.now() - loadStart)}`);

  const queries: [string, Omit<IssueFilter, 'now'>][] = [
    ['no filter', {}],
    ['status=open', { status: 'open' }],
    ['severity=high', { severity: 'high' }],
    ['target=HOST7.example.com', { target: 'HOST7.example.com' }],
    ['rule_id=mailscan.dmarc', { ruleId: 'mailscan.dmarc' }],
    ['status=open&schedule_id', { status: 'open', scheduleId: 'sch_01HZ0000000000000000000000' }],
  ];
  console.log(`\n${ROUNDS} rounds of a 50-item page, big (${BIG}) and small (${SMALL}) interleaved, order alternating`);
  console.log('query                          | p50 small  | p50 big    | ratio big/small min / median / max');
  for (const [label, filter] of queries) {
    const small: number[] = [];
    const big: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS + 3; round += 1) {
      const run = (tenant: string) => timed(() => repo.list(tenant, { ...filter, now: NOW }, 50));
      const [a, b] =
        round % 2 === 0 ? [await run('small'), await run('big')] : ([await run('big'), await run('small')].reverse() as [number, number]);
      if (round < 3) continue; // warm-up
      small.push(a);
      big.push(b);
      ratios.push(b / a);
    }
    ratios.sort((x, y) => x - y);
    console.log(
      `${label.padEnd(30)} | ${ms(percentile(small, 50)).padEnd(10)} | ${ms(percentile(big, 50)).padEnd(10)} | ${ratios[0].toFixed(2)} / ${percentile(ratios, 50).toFixed(2)} / ${ratios[ratios.length - 1].toFixed(2)}`,
    );
  }
  await tables.close();
}

async function scanTouching(count: number) {
  const runner = new ScriptedRunner();
  const service = await startTestService({ runners: new Map([['email_security', runner]]) });
  const token = await service.token('bench', 'operator');
  runner.behaviour = async () => ({ findings: Array.from({ length: count }, (_, i) => finding(i, { evidence: { i } })) });
  await service.call('/api/scans/schedules/', {
    method: 'POST',
    token,
    body: scheduleBody({ cadence: 'custom', cron_expression: '0 * * * *' }),
  });
  console.log(`\na fire of one target reporting ${count} findings (each one issue)`);
  for (const label of ['first fire (all new)', 'next fire (all seen again)']) {
    service.runtime.dynamoRequests.clear();
    service.clock.advance(3_600_000);
    const elapsed = await timed(() => service.runtime.drain());
    const requests = Object.fromEntries(service.runtime.dynamoRequests);
    const total = Object.values(requests).reduce((sum, n) => sum + n, 0);
    console.log(
      `${label}: ${total} requests ${JSON.stringify(requests)} in ${ms(elapsed)}; budget 6 + ⌈${count}/25⌉ + ⌈${count}/25⌉ = ${6 + 2 * Math.ceil(count / 25)}`,
    );
  }
  const memory = process.memoryUsage();
  console.log(`rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
  await service.stop();
}

await scanTouching(1000);
await listing();
