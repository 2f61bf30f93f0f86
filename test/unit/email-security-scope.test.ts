import { describe, expect, it } from 'vitest';
import { EmailSecurityScope } from '../../shared/domain/scope.ts';

describe('email_security scope', () => {
  it('names the DKIM selector it refuses', () => {
    const result = EmailSecurityScope.safeParse({ dkim_selectors: ['s1', 'bad!'] });

    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ['dkim_selectors', 1],
        message: 'include "bad!", which is not a selector (letters, digits and ._- only)',
      }),
    ]);
  });

  it('quotes a refused selector as JSON, cut to 64 characters', () => {
    const long = `${'a'.repeat(70)}\n`;

    const result = EmailSecurityScope.safeParse({ dkim_selectors: [long] });

    expect(result.error?.issues[0].message).toBe(`include "${'a'.repeat(64)}", which is not a selector (letters, digits and ._- only)`);
  });
});
