import { isIP, isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isIP as shimIsIP, isIPv4 as shimIsIPv4, isIPv6 as shimIsIPv6 } from '../../web/src/shims/node-net.ts';
import { domainToASCII as shimDomainToASCII } from '../../web/src/shims/node-url.ts';

// The UI runs shared/domain's target rules with these two functions swapped in (docs/web-ui.md):
// they must answer as Node does for the inputs target validation passes them.
describe('browser stand-ins for node:net and node:url', () => {
  const addresses = [
    '192.0.2.1',
    '0.0.0.0',
    '255.255.255.255',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3',
    '::',
    '::1',
    '2001:db8::1',
    'fe80::1%eth0',
    '::ffff:192.0.2.1',
    '2001:db8::g',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7:8:9',
    'example.com',
    '',
    '[::1]',
  ];
  it.each(addresses)('isIP(%j) as Node', (input) => {
    expect(shimIsIP(input)).toBe(isIP(input));
    expect(shimIsIPv4(input)).toBe(isIPv4(input));
    expect(shimIsIPv6(input)).toBe(isIPv6(input));
  });

  const domains = [
    'example.com',
    'EXAMPLE.com',
    'bücher.de',
    'xn--bcher-kva.de',
    'ÉCOLE.fr',
    'a.b.c.example',
    'under_score.example',
    'münchen.test',
    'a..b',
    '-x.example',
  ];
  it.each(domains)('domainToASCII(%j) as Node', (input) => {
    expect(shimDomainToASCII(input)).toBe(domainToASCII(input));
  });
});
