import * as packet from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { mapResponse } from '../../../../lib/dns/answer-mapping.ts';

function response(rcodeBits: number, answers: packet.Answer[]) {
  return packet.decode(packet.encode({ type: 'response', id: 1, flags: rcodeBits, questions: [{ name: 'a.test', type: 'A' }], answers }));
}

describe('answer mapping', () => {
  it('asks again when a CNAME chain leaves the answer section', () => {
    const decoded = response(0, [{ name: 'a.test', type: 'CNAME', data: 'b.other.test' }]);

    expect(mapResponse(decoded, 'a.test', 'A')).toEqual({ status: 'cname', target: 'b.other.test' });
  });

  it('reports a CNAME loop as unknown', () => {
    const decoded = response(0, [
      { name: 'a.test', type: 'CNAME', data: 'b.test' },
      { name: 'b.test', type: 'CNAME', data: 'a.test' },
    ]);

    expect(mapResponse(decoded, 'a.test', 'A')).toMatchObject({ status: 'unknown', reason: 'error' });
  });

  it('reports the AD flag as authenticated', () => {
    const decoded = response(packet.AUTHENTIC_DATA, [{ name: 'a.test', type: 'A', data: '192.0.2.1' }]);

    expect(mapResponse(decoded, 'a.test', 'A')).toEqual({ status: 'found', records: ['192.0.2.1'], authenticated: true });
  });

  it('maps an unexpected rcode to unknown', () => {
    const decoded = response(4, []);

    expect(mapResponse(decoded, 'a.test', 'A')).toMatchObject({ status: 'unknown', reason: 'error' });
  });
});
