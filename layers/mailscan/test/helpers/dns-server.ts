/**
 * A real authoritative DNS server on loopback (UDP and TCP on the same random port) serving zone-file
 * fixtures, with per-name misbehaviour for tests: truncate over UDP, delay, drop, SERVFAIL, REFUSED.
 *
 *   const dns = await startDnsServer({ zoneDir: 'test/fixtures/mailscan/zones' });
 *   dns.behave('slow.example.test', { delayMs: 50 });
 *   execFile(cli, ['scan', 'example.test', '--nameserver', dns.address]);
 *   await dns.close();
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import * as packet from 'dns-packet';
import type { Answer, DecodedPacket, Packet } from 'dns-packet';
import { parseZone, type ZoneRecord } from './zone-file.ts';

export interface Behaviour {
  /** Over UDP answer with TC set and no records, so the client must retry over TCP. */
  truncate?: boolean;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  /** Never answer (UDP and TCP): the client sees a timeout. */
  drop?: boolean;
  /** Drop only this many queries for the name, then answer: exercises retries. */
  dropFirst?: number;
  rcode?: 'SERVFAIL' | 'REFUSED';
  /**
   * Rewrites the reply this server would send (a hostile or broken server: an extended RCODE in the
   * OPT record, a referral, TC set over TCP). Returns the packet to encode instead.
   */
  craft?: (reply: Packet, transport: 'udp' | 'tcp') => Packet;
  /**
   * Over UDP, a forged reply sent before the genuine one: from the server's own socket (a reply in
   * another class or opcode), or from another port or address (an off-path spoofer that guessed the
   * id). The genuine reply follows `delayMs` (default 20) later, as an off-path race would have it.
   */
  forge?: { from: 'server' | 'other-port' | 'other-address'; craft: (reply: Packet) => Packet };
}

export interface QueryLogEntry {
  name: string;
  type: string;
  transport: 'udp' | 'tcp';
}

export interface TestDnsServerOptions {
  /** Every `*.zone` file in this folder is loaded; the file name (minus .zone) is the default origin. */
  zoneDir?: string;
  zoneFiles?: string[];
  zones?: { text: string; origin?: string }[];
  /** Added to every answer: simulates network latency for the benchmark. */
  addedDelayMs?: number;
  /** What a name outside every loaded zone gets: REFUSED as a real authoritative server, or NXDOMAIN. */
  outOfZone?: 'REFUSED' | 'NXDOMAIN';
  /** Where to listen: 127.0.0.1 and a random port by default. Tools that only speak port 53 (dnstwist) need e.g. 127.0.0.53:53, as root. */
  host?: string;
  port?: number;
  /** Answer this many questions, then never again (UDP and TCP): a resolver that dies mid-session. */
  dieAfter?: number;
}

export interface TestDnsServer {
  host: string;
  port: number;
  /** `127.0.0.1:PORT`, the form `--nameserver` and MAILSCAN_NAMESERVERS take. */
  address: string;
  /** Every question received, in order of arrival. */
  readonly log: QueryLogEntry[];
  addedDelayMs: number;
  /** Misbehave for one name (any type, or only `type`). */
  behave(name: string, behaviour: Behaviour, type?: string): void;
  addZone(text: string, origin?: string): void;
  /** Forgets behaviours and the log (zones stay). */
  reset(): void;
  close(): Promise<void>;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const MAX_CNAME_HOPS = 8;

export async function startDnsServer(options: TestDnsServerOptions = {}): Promise<TestDnsServer> {
  const zone = new ZoneStore();
  if (options.zoneDir) {
    for (const file of readdirSync(options.zoneDir)
      .filter((entry) => entry.endsWith('.zone'))
      .sort()) {
      zone.add(readFileSync(join(options.zoneDir, file), 'utf8'), file.slice(0, -'.zone'.length));
    }
  }
  for (const file of options.zoneFiles ?? []) zone.add(readFileSync(file, 'utf8'));
  for (const extra of options.zones ?? []) zone.add(extra.text, extra.origin);

  const behaviours = new Map<string, Behaviour>();
  const log: QueryLogEntry[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const tcpSockets = new Set<Socket>();
  const outOfZone = options.outOfZone ?? 'REFUSED';

  /** Answers one query message; null means "stay silent". */
  function respond(
    message: Buffer,
    transport: 'udp' | 'tcp',
    send: (response: Buffer) => void,
    sendForged?: (response: Buffer, from: 'server' | 'other-port' | 'other-address') => void,
  ): void {
    let query: DecodedPacket;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.replace(/\.$/, '').toLowerCase();
    log.push({ name, type: question.type, transport });
    if (options.dieAfter !== undefined && log.length > options.dieAfter) return;
    const behaviour = behaviours.get(`${name} ${question.type}`) ?? behaviours.get(name) ?? {};
    if (behaviour.drop) return;
    if (behaviour.dropFirst !== undefined && behaviour.dropFirst > 0) {
      behaviour.dropFirst -= 1;
      return;
    }
    const reply = () => send(encodeReply(query, name, question.type, behaviour, transport));
    if (behaviour.forge && transport === 'udp' && sendForged) {
      const forged = behaviour.forge.craft(replyPacket(query, name, question.type, {}, transport));
      sendForged(packet.encode(forged), behaviour.forge.from);
    }
    const delay = (behaviour.delayMs ?? (behaviour.forge ? 20 : 0)) + server.addedDelayMs;
    if (delay <= 0) return reply();
    const timer = setTimeout(() => {
      timers.delete(timer);
      reply();
    }, delay);
    timers.add(timer);
  }

  function encodeReply(query: DecodedPacket, name: string, type: string, behaviour: Behaviour, transport: 'udp' | 'tcp'): Buffer {
    const reply = replyPacket(query, name, type, behaviour, transport);
    return packet.encode(behaviour.craft ? behaviour.craft(reply, transport) : reply);
  }

  function replyPacket(query: DecodedPacket, name: string, type: string, behaviour: Behaviour, transport: 'udp' | 'tcp'): Packet {
    const base: Packet = {
      type: 'response',
      id: query.id,
      questions: query.questions,
      flags: packet.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & packet.RECURSION_DESIRED),
    };
    if (behaviour.rcode) return { ...base, flags: base.flags! | RCODES[behaviour.rcode] };
    if (behaviour.truncate && transport === 'udp') return { ...base, flags: base.flags! | packet.TRUNCATED_RESPONSE };
    const found = zone.lookup(name, type);
    const rcode = found === null ? RCODES[outOfZone] : found.rcode;
    const wantsAd = (query.flags ?? 0) & packet.AUTHENTIC_DATA;
    const flags = base.flags! | rcode | (found?.signed && wantsAd ? packet.AUTHENTIC_DATA : 0);
    const reply: Packet = { ...base, flags, answers: found?.answers ?? [], authorities: found?.authorities ?? [] };
    if (transport === 'udp' && packet.encode(reply).length > udpLimit(query))
      return { ...base, flags: base.flags! | packet.TRUNCATED_RESPONSE };
    return reply;
  }

  const tcp: Server = createServer((socket) => {
    tcpSockets.add(socket);
    socket.on('close', () => tcpSockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        respond(message, 'tcp', (response) => {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(response.length);
          if (!socket.destroyed) socket.write(Buffer.concat([length, response]));
        });
      }
    });
  });
  const host = options.host ?? '127.0.0.1';
  const { udp, port } = await bindBoth(
    tcp,
    (socket) => {
      socket.on('message', (message, remote) =>
        respond(
          message,
          'udp',
          (response) => socket.send(response, remote.port, remote.address),
          (response, from) => {
            if (from === 'server') return socket.send(response, remote.port, remote.address);
            // Another port on the same address, or the same port on another loopback address.
            const spoofer = createSocket('udp4');
            const address = from === 'other-address' ? '127.0.0.2' : host;
            spoofer.bind(from === 'other-address' ? port : 0, address, () =>
              spoofer.send(response, remote.port, remote.address, () => spoofer.close()),
            );
          },
        ),
      );
    },
    host,
    options.port ?? 0,
  );

  const server: TestDnsServer = {
    host,
    port,
    address: `${host}:${port}`,
    log,
    addedDelayMs: options.addedDelayMs ?? 0,
    behave(name, behaviour, type) {
      const key = name.replace(/\.$/, '').toLowerCase();
      behaviours.set(type ? `${key} ${type.toUpperCase()}` : key, { ...behaviour });
    },
    addZone(text, origin) {
      zone.add(text, origin);
    },
    reset() {
      behaviours.clear();
      log.length = 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of tcpSockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
  return server;
}

/** Without EDNS a UDP answer is at most 512 bytes (RFC 1035); with it, the size the client offered. */
function udpLimit(query: DecodedPacket): number {
  const opt = query.additionals?.find((record) => record.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  return Math.max(512, opt?.udpPayloadSize ?? 512);
}

/** Binds UDP to a random port, then TCP to the same one; retries if TCP finds it taken. */
async function bindBoth(
  tcp: Server,
  serve: (socket: UdpSocket) => void,
  host: string,
  fixedPort: number,
): Promise<{ udp: UdpSocket; port: number }> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const udp = createSocket('udp4');
    serve(udp);
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(fixedPort, host, () => resolve());
    });
    const port = udp.address().port;
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, host, () => resolve(true));
    });
    if (listening) return { udp, port };
    await new Promise<void>((resolve) => udp.close(() => resolve()));
  }
  throw new Error('could not bind the test DNS server to one port for UDP and TCP');
}

interface Lookup {
  rcode: number;
  answers: Answer[];
  authorities: Answer[];
  /** The zone publishes a DNSKEY at its apex: answers carry AD when the client asks for it. */
  signed: boolean;
}

/** All loaded zones, answering as an authoritative server that also chases CNAMEs across them. */
class ZoneStore {
  private readonly origins = new Set<string>();
  private readonly byName = new Map<string, ZoneRecord[]>();
  /** Names with records below them (empty non-terminals exist: NODATA, not NXDOMAIN). */
  private readonly interior = new Set<string>();

  add(text: string, origin?: string): void {
    const records = parseZone(text, origin === undefined ? {} : { origin });
    for (const record of records) {
      if (record.type === 'SOA') this.origins.add(record.name);
      const list = this.byName.get(record.name) ?? [];
      list.push(record);
      this.byName.set(record.name, list);
      const labels = record.name.split('.');
      for (let i = 1; i < labels.length; i += 1) this.interior.add(labels.slice(i).join('.'));
    }
    if (origin !== undefined) this.origins.add(origin.replace(/\.$/, '').toLowerCase());
  }

  lookup(name: string, type: string): Lookup | null {
    const answers: Answer[] = [];
    let current = name;
    let zone = this.zoneOf(current);
    if (zone === null) return null;
    for (let hop = 0; hop <= MAX_CNAME_HOPS; hop += 1) {
      const records = this.recordsAt(current);
      const matching = records?.filter((record) => record.type === type) ?? [];
      const cname = records?.find((record) => record.type === 'CNAME');
      if (matching.length > 0) {
        answers.push(...matching.map((record) => toAnswer(record, current)));
        return { rcode: RCODES.NOERROR, answers, authorities: [], signed: this.isSigned(zone) };
      }
      if (cname && type !== 'CNAME') {
        answers.push(toAnswer(cname, current));
        current = cname.data as string;
        const next = this.zoneOf(current);
        if (next === null) return { rcode: RCODES.NOERROR, answers, authorities: [], signed: false };
        zone = next;
        continue;
      }
      const exists = records !== undefined || this.interior.has(current);
      return { rcode: exists ? RCODES.NOERROR : RCODES.NXDOMAIN, answers, authorities: this.soa(zone), signed: this.isSigned(zone) };
    }
    return { rcode: RCODES.SERVFAIL, answers: [], authorities: [], signed: false };
  }

  /** Exact records, else the closest wildcard (`*.parent`) when the name itself does not exist. */
  private recordsAt(name: string): ZoneRecord[] | undefined {
    const exact = this.byName.get(name);
    if (exact || this.interior.has(name)) return exact;
    const labels = name.split('.');
    for (let i = 1; i < labels.length; i += 1) {
      const parent = labels.slice(i).join('.');
      const wildcard = this.byName.get(`*.${parent}`);
      if (wildcard) return wildcard;
      if (this.byName.has(parent) || this.interior.has(parent)) return undefined;
    }
    return undefined;
  }

  private zoneOf(name: string): string | null {
    let best: string | null = null;
    for (const origin of this.origins) {
      if ((name === origin || name.endsWith(`.${origin}`)) && (best === null || origin.length > best.length)) best = origin;
    }
    return best;
  }

  private soa(zone: string): Answer[] {
    return (this.byName.get(zone) ?? []).filter((record) => record.type === 'SOA').map((record) => toAnswer(record, zone));
  }

  private isSigned(zone: string): boolean {
    return (this.byName.get(zone) ?? []).some((record) => record.type === 'DNSKEY');
  }
}

function toAnswer(record: ZoneRecord, owner: string): Answer {
  return { name: owner, type: record.type, ttl: record.ttl, class: 'IN', data: record.data } as Answer;
}
