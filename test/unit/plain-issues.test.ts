import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { zodIssues } from '../../shared/domain/errors.ts';
import { startTestService } from '../helpers/local-service.ts';

const messages = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodIssues(parsed.error).map((issue) => `${issue.field} ${issue.message}`);
};

describe('field issues in plain words', () => {
  it.each([
    [z.object({ leak: z.boolean() }), { leak: 'yes' }, ['leak must be true or false (a box to tick)']],
    [z.object({ name: z.string() }), {}, ['name is required']],
    [z.object({ name: z.string().min(1) }), { name: '' }, ['name is required']],
    [z.object({ name: z.string().min(3) }), { name: 'ab' }, ['name must be at least 3 characters']],
    [z.object({ name: z.string().max(5) }), { name: 'abcdef' }, ['name must be at most 5 characters']],
    [z.object({ rate: z.number().int().max(20) }), { rate: 50 }, ['rate must be at most 20']],
    [z.object({ rate: z.number().int() }), { rate: 1.5 }, ['rate must be a whole number']],
    [z.object({ rate: z.number().positive() }), { rate: 0 }, ['rate must be more than 0']],
    [z.object({ ports: z.array(z.number()).max(2) }), { ports: [1, 2, 3] }, ['ports may list at most 2 items']],
    [z.object({ ports: z.array(z.number()).min(1) }), { ports: [] }, ['ports needs at least one item']],
    [z.object({ mode: z.enum(['quick', 'full']) }), { mode: 'fast' }, ['mode must be one of "quick", "full"']],
    [z.object({ to: z.email() }), { to: 'nobody' }, ['to must be an email address such as security@example.com']],
    [z.object({ code: z.string().regex(/^a+$/) }), { code: 'b' }, ['code is not in the accepted form']],
    [z.object({ code: z.string().regex(/^a+$/, 'Only the letter a.') }), { code: 'b' }, ['code Only the letter a.']],
  ] as const)('%#: says what is wrong without zod words', (schema, value, expected) => {
    const said = messages(schema, value);
    expect(said).toEqual(expected);
    for (const message of said) expect(message).not.toMatch(/Invalid input|Too (small|big)|expected \w+, received|>=|<=/);
  });

  it('answers a scan with every bad option at once, each in words, and stores nothing', async () => {
    const service = await startTestService();
    try {
      const reply = await service.call('/api/scans/', {
        method: 'POST',
        token: await service.token('acme', 'operator'),
        body: { scan_type: 'email_security', target: 'example.com', scope: { leak: 'yes', reputation: 1, dkim_selectors: 'one' } },
      });
      expect(reply.status).toBe(400);
      const details = reply.body.error.details as { field: string; message: string }[];
      expect(details.map((detail) => detail.field).sort()).toEqual(['scope.dkim_selectors', 'scope.leak', 'scope.reputation']);
      for (const detail of details) expect(detail.message).not.toMatch(/Invalid input|expected \w+, received/);
      expect(details.find((detail) => detail.field === 'scope.leak')!.message).toBe('must be true or false (a box to tick)');
      expect((await service.call('/api/scans/', { token: await service.token('acme') })).body.items).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
