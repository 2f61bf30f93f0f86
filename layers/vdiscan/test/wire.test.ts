/**
 * The RDP wire pieces on recorded bytes, for the answers no Debian server gives: a Connection
 * Confirm without negotiation data (a server that predates negotiation: standard RDP), the
 * failure codes by name, TPKT bounds, and an MCS Connect Response whose security block is found
 * by its chain of user-data headers. Real servers cover the rest (rdp.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { RdpProtocolError, parseConnectionConfirm, tpktFramer } from '../../engine-kit/src/rdp-negotiation.ts';
import { mcsConnectInitial, parseMcsConnectResponse, parseNtlmChallenge } from '../src/rdp-wire.ts';

describe('RDP wire', () => {
  it('reads a legacy Connection Confirm, a selection and each failure code', () => {
    expect(parseConnectionConfirm(Buffer.from('0300000b06d00000123400', 'hex'))).toEqual({ kind: 'legacy' });
    expect(parseConnectionConfirm(Buffer.from('030000130ed00000123400020f080002000000', 'hex'))).toEqual({
      kind: 'selected',
      selected: 2,
      flags: 15,
    });
    expect(parseConnectionConfirm(Buffer.from('030000130ed00000123400030008000500000000', 'hex').subarray(0, 19))).toMatchObject({
      kind: 'failure',
      code: 5,
      name: 'HYBRID_REQUIRED_BY_SERVER',
    });
    expect(() => parseConnectionConfirm(Buffer.from('030000130ee00000123400020008000000000000', 'hex').subarray(0, 19))).toThrow(
      RdpProtocolError,
    );
  });

  it('bounds TPKT framing: too short, too long, not a TPKT', () => {
    expect(tpktFramer(Buffer.from([3, 0]))).toBeNull();
    expect(() => tpktFramer(Buffer.from([3, 0, 0, 4]))).toThrow('a TPKT length of 4');
    expect(() => tpktFramer(Buffer.from([3, 0, 0xff, 0xff]))).toThrow('65535 bytes');
    expect(() => tpktFramer(Buffer.from('HTTP/1.1 400'))).toThrow('not a TPKT header');
  });

  it('finds the server security data by the user-data chain, not by a stray byte pair', () => {
    const core = Buffer.from('010c0c00040008000000000000', 'hex').subarray(0, 12); // SC_CORE, 12 bytes
    const security = Buffer.from('020c0c000100000001000000', 'hex'); // 40-bit, LOW, no random/cert
    const net = Buffer.from('030c08000000eb03', 'hex');
    const decoy = Buffer.from('020c', 'hex');
    const body = Buffer.concat([Buffer.from('7f66', 'hex'), decoy, core, security, net]);
    const message = Buffer.concat([Buffer.from([3, 0, 0, 0, 2, 0xf0, 0x80]), body]);
    message.writeUInt16BE(message.length, 2);
    expect(parseMcsConnectResponse(message)).toEqual({ method: 1, level: 1 });
    expect(mcsConnectInitial(0).readUInt16BE(2)).toBe(mcsConnectInitial(0).length);
  });

  it('reads an NTLM CHALLENGE’s names and version, and refuses a field pointing outside it', () => {
    const name = (id: number, text: string) => {
      const value = Buffer.from(text, 'utf16le');
      const head = Buffer.alloc(4);
      head.writeUInt16LE(id, 0);
      head.writeUInt16LE(value.length, 2);
      return Buffer.concat([head, value]);
    };
    const info = Buffer.concat([
      name(1, 'HOST1'),
      name(2, 'CORP'),
      name(3, 'host1.corp.example'),
      name(4, 'corp.example'),
      Buffer.alloc(4),
    ]);
    const message = Buffer.alloc(56);
    message.write('NTLMSSP\0', 0, 'latin1');
    message.writeUInt32LE(2, 8);
    message.writeUInt32LE(0x02000001 | 0x00800000, 20);
    message.writeUInt16LE(info.length, 40);
    message.writeUInt32LE(56, 44);
    message.set([10, 0, 0x61, 0x4a], 48); // 10.0.19041
    const challenge = Buffer.concat([Buffer.from('3082', 'hex'), message, info]);
    expect(parseNtlmChallenge(challenge)).toEqual({
      netbios_computer: 'HOST1',
      netbios_domain: 'CORP',
      dns_computer: 'host1.corp.example',
      dns_domain: 'corp.example',
      os_version: '10.0.19041',
    });
    message.writeUInt32LE(10_000, 44);
    expect(() => parseNtlmChallenge(Buffer.concat([message, info]))).toThrow('points past the message');
  });
});
