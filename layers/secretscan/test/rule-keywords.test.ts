import { randomBytes, randomInt } from 'node:crypto';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { ruleIdFor } from '../src/catalogue.ts';
import { detectSecrets, mayHoldSecrets } from '../src/detect.ts';
import { ASSIGNMENT, ASSIGNMENT_NAME_STARTS, findHighEntropyAssignments } from '../src/entropy-rule.ts';
import { keywordsIn, LiteralSet, RULE_KEYWORDS, SECRETLINT_RULE_PREFIX, rulesThatCanMatch } from '../src/rule-keywords.ts';
import { decoyLines, fillerLines, ruleSamples, type RuleSample } from './rule-samples.ts';

const PRESET_IDS = (presetRules as { meta: { id: string } }[]).map((rule) => rule.meta.id);
const shortName = (id: string): string => id.slice(SECRETLINT_RULE_PREFIX.length);

describe('the keyword table', () => {
  it('has an entry for every rule the installed preset defines, and none for a rule it lacks', () => {
    // Read from the preset at test time: an upgrade that adds a rule fails here until its code is read.
    expect(PRESET_IDS.every((id) => id.startsWith(SECRETLINT_RULE_PREFIX))).toBe(true);
    expect(Object.keys(RULE_KEYWORDS).sort()).toEqual(PRESET_IDS.map(shortName).sort());
  });

  it('leaves out every rule of a text without their literals, and keeps those whose literals are in it', () => {
    expect(rulesThatCanMatch(PRESET_IDS, fillerLines().join('\n'))).toEqual([]);
    expect(mayHoldSecrets(fillerLines().join('\n'))).toBe(false);
    const github = rulesThatCanMatch(PRESET_IDS, `const token = '${['gh', 'p_'].join('')}abc';`).map(shortName);
    expect(github).toEqual(['github', 'filter-comments']);
    // The connection-string rule needs its scheme in any case and an @.
    expect(rulesThatCanMatch(PRESET_IDS, 'POSTGRES://db/app').map(shortName)).toEqual([]);
    expect(rulesThatCanMatch(PRESET_IDS, 'POSTGRES://u:p@db/app').map(shortName)).toEqual([
      'basicauth',
      'database-connection-string',
      'filter-comments',
    ]);
  });

  it('runs a rule it does not know', () => {
    expect(rulesThatCanMatch(['@acme/secretlint-rule-new', ...PRESET_IDS], 'plain text')).toEqual([
      '@acme/secretlint-rule-new',
      PRESET_IDS.at(-1),
    ]);
  });
});

describe('LiteralSet', () => {
  it('finds overlapping and nested literals, and case-folded ones in any case', () => {
    const set = new LiteralSet(['abc', 'bc', 'b', 'cd'], ['mysql', 'sql']);
    expect([...set.found('xabcd')].sort()).toEqual(['abc', 'b', 'bc', 'cd']);
    expect([...set.found('x MySQL y')].sort()).toEqual(['mysql', 'sql']);
    expect([...set.found('ABC my-sq-l')]).toEqual([]);
  });

  it('compares the characters themselves where a non-ASCII one shares an ASCII code in its index', () => {
    const set = new LiteralSet(['AKIA'], ['mysql']);
    // Á is 0xC1: its low 7 bits are those of A.
    expect([...set.found('xÁKIA mÿsql')]).toEqual([]);
    expect([...set.found('xÁKIA AKIA MYSQL')].sort()).toEqual(['AKIA', 'mysql']);
  });

  it('refuses a literal it could not compare soundly', () => {
    expect(() => new LiteralSet(['ſecret'], [])).toThrow('not printable ASCII');
    expect(() => new LiteralSet([], ['Secret'])).toThrow('must be lower case');
    expect(() => new LiteralSet([], [], ['Token'])).toThrow('must be lower case');
    expect(() => new LiteralSet([], [], ['pw'])).toThrow('under three characters');
  });

  it('gives every start of a located literal in any case, ascending, each once, apart from the literals present', () => {
    const set = new LiteralSet(['AKIA'], [], ['token', 'tok', 'api']);
    // tok and token start at the same offsets: each offset once; ſ, Á and the like are not ASCII letters.
    expect(set.scan('TokenTOKEN api_key ToK xapi ſecret ápi AKIA')).toEqual({ present: new Set(['AKIA']), starts: [0, 5, 11, 19, 24] });
    expect(set.scan('tokapitok')).toEqual({ present: new Set(), starts: [0, 3, 6] });
    expect(set.scan('to ken')).toEqual({ present: new Set(), starts: [] });
  });
});

describe("the entropy rule's starts", () => {
  it('name the leading letters of every alternative of its expression', () => {
    // The name alternation: the first group of ASSIGNMENT, split at its top-level bars.
    const source = ASSIGNMENT.source;
    expect(source.startsWith('(?:')).toBe(true);
    let depth = 0;
    let end = 0;
    for (let at = 0; at < source.length; at += 1) {
      if (source[at] === '\\') at += 1;
      else if (source[at] === '(') depth += 1;
      else if (source[at] === ')' && --depth === 0) {
        end = at;
        break;
      }
    }
    const alternatives: string[] = [];
    let current = '';
    depth = 0;
    for (const char of source.slice(3, end)) {
      if (char === '|' && depth === 0) {
        alternatives.push(current);
        current = '';
        continue;
      }
      if (char === '(' || char === '[') depth += 1;
      if (char === ')' || char === ']') depth -= 1;
      current += char;
    }
    alternatives.push(current);
    expect(alternatives.length).toBeGreaterThanOrEqual(11);
    for (const alternative of alternatives) {
      // Its leading letters, up to a group, a class, or a letter made optional by a quantifier.
      const leading = /^[a-z]*/i.exec(alternative)![0];
      const fixed = /^[?*{]/.test(alternative.slice(leading.length)) ? leading.slice(0, -1) : leading;
      expect(
        ASSIGNMENT_NAME_STARTS.some((start) => fixed.toLowerCase().startsWith(start)),
        `${alternative}: no start among ${ASSIGNMENT_NAME_STARTS.join(', ')}`,
      ).toBe(true);
    }
  });

  it('give exactly the matches of the scan of the whole text, on random assignments', () => {
    const names = [
      'secret',
      'password',
      'passwd',
      'pwd',
      'token',
      'api_key',
      'api-key',
      'apikey',
      'access_key',
      'auth-key',
      'private_key',
      'client_secret',
      'credential',
      'credentials',
      'tok',
      'api',
      'secre',
      'ſecret',
      'cliént_secret',
      'monkey',
    ];
    const operators = ['=', ': ', ' := ', ' => ', '', '"="', ' = '];
    const values = () =>
      pick([
        randomBytes(20 + randomInt(30)).toString('base64url'),
        `"${randomBytes(24).toString('hex')}"`,
        'your-api-key-goes-here-please',
        'process.env.TOKEN_VALUE_FOR_THE_APP',
        randomBytes(8).toString('hex'),
      ]);
    let found = 0;
    for (let round = 0; round < 2000; round += 1) {
      const parts = Array.from({ length: 1 + randomInt(6) }, () => {
        const name = randomInt(3) === 0 ? swapCase(pick(names)) : pick(names);
        return `${pick(['', 'my_', 'x', 'const ', '"', 'TOKEN'])}${name}${pick(['', '_ID', 'Secret', 'token'])}${pick(operators)}${values()}`;
      });
      const text = parts.join(pick(['\n', ' ', '', '; ', ', ']));
      const whole = findHighEntropyAssignments(text);
      expect(findHighEntropyAssignments(text, keywordsIn(PRESET_IDS, text).entropyStarts), text).toEqual(whole);
      found += whole.length;
    }
    expect(found).toBeGreaterThan(1000);
  });
});

/** secretlint-disable comments in their forms: every line, the next line, blocks, one rule, with a note. */
const DISABLE_LINES = [
  '// secretlint-disable-line',
  '# secretlint-disable-next-line',
  '/* secretlint-disable */',
  '/* secretlint-enable */',
  '// secretlint-disable @secretlint/secretlint-rule-github',
  '// secretlint-enable @secretlint/secretlint-rule-github',
  '# secretlint-disable-line @secretlint/secretlint-rule-aws -- rotated',
  '# secretlint-disable-next-line @secretlint/secretlint-rule-slack, @secretlint/secretlint-rule-npm',
];

function pick<T>(list: readonly T[]): T {
  return list[randomInt(list.length)];
}

function swapCase(text: string): string {
  return [...text].map((char) => (randomInt(2) === 0 ? char.toUpperCase() : char.toLowerCase())).join('');
}

/** A piece of a random text: a sample whole, cut, re-cased or with a comment; a decoy; a comment; filler. */
function piece(samples: readonly RuleSample[]): string {
  const text = pick(samples).text;
  switch (randomInt(9)) {
    case 0:
    case 1:
      return text;
    case 2: {
      const start = randomInt(text.length);
      return text.slice(start, start + 1 + randomInt(text.length - start));
    }
    case 3:
      return randomInt(2) === 0 ? text.toUpperCase() : text.toLowerCase();
    case 4:
      return swapCase(text);
    case 5:
      return `${text.trimEnd()} ${pick(DISABLE_LINES)}`;
    case 6:
      return pick(decoyLines());
    case 7:
      return pick(DISABLE_LINES);
    default:
      return pick(fillerLines());
  }
}

const PATHS = ['src/app.js', 'config/prod.env', 'deploy/key.json', 'package.json', '.npmrc', 'README.md', 'a/b/package-lock.json'];

/** Also: a text mayHoldSecrets says nothing of gives nothing to the whole preset, on any path (blob-triage.ts relies on it). */
async function expectSameMatches(path: string, text: string): Promise<void> {
  const off = await detectSecrets(path, text, { entropy: true, prefilter: false });
  const on = await detectSecrets(path, text, { entropy: true });
  expect(on, `${path}:\n${text}`).toEqual(off);
  if (!mayHoldSecrets(text)) {
    for (const anyPath of [path, ...PATHS]) {
      expect(await detectSecrets(anyPath, text, { entropy: true, prefilter: false }), `${anyPath}:\n${text}`).toEqual([]);
    }
  }
}

describe('detectSecrets with and without the prefilter', () => {
  const samples = ruleSamples();

  it('has a sample every rule of the preset reports', async () => {
    for (const sample of samples) {
      // The AWS rule reports two of our rules: the secret key and the key id.
      const expected = [
        ruleIdFor(SECRETLINT_RULE_PREFIX + sample.rule, undefined),
        ...(sample.rule === 'aws' ? ['secret.aws_access_key_id'] : []),
      ];
      const matches = await detectSecrets(sample.path, sample.text, { entropy: false, prefilter: false });
      expect(
        matches.some((match) => expected.includes(match.ruleId)),
        `${sample.rule} in ${sample.path}:\n${sample.text}`,
      ).toBe(true);
    }
    expect(samples.filter((sample) => !mayHoldSecrets(sample.text)).map((sample) => sample.rule)).toEqual([]);
    const covered = new Set(samples.map((sample) => sample.rule));
    expect(PRESET_IDS.map(shortName).filter((name) => !covered.has(name))).toEqual(['filter-comments']);
  });

  it('gives the same matches on every sample, decoy and disable comment', async () => {
    for (const sample of samples) {
      await expectSameMatches(sample.path, sample.text);
      await expectSameMatches(sample.path, sample.text.toUpperCase());
      await expectSameMatches(sample.path, sample.text.toLowerCase());
      for (const comment of DISABLE_LINES) {
        await expectSameMatches(sample.path, `${sample.text.trimEnd()} ${comment}\n`);
        await expectSameMatches(sample.path, `${comment}\n${sample.text}`);
      }
    }
    for (const decoy of decoyLines()) await expectSameMatches('docs/example.md', decoy);
    // A sample matched (not all texts are empty on both sides).
    expect((await detectSecrets(samples[0].path, samples[0].text, { entropy: true })).length).toBeGreaterThan(0);
  });

  it('gives the same matches on random texts mixing samples, cuts, cases, decoys and comments', async () => {
    for (let round = 0; round < 300; round += 1) {
      const count = 1 + randomInt(8);
      const separator = pick(['\n', ' ', '', '\n\n']);
      const text = Array.from({ length: count }, () => piece(samples)).join(separator);
      await expectSameMatches(pick([...PATHS, pick(samples).path]), text);
    }
  });
});
