/** Starts every listener of helpers/listeners.ts; the real-server ones only where their binary exists. */
import { existsSync } from 'node:fs';
import {
  REDIS_SERVER,
  SSHD,
  OPENSSL,
  PYTHON3,
  startDocker,
  startElasticsearch,
  startFlood,
  startFtp,
  startHttp,
  startHttps,
  startMemcached,
  startMongo,
  startMysql,
  startPostgres,
  startRdp,
  startRedis,
  startSilent,
  startSmtp,
  startSshd,
  startTelnet,
  startVnc,
  type Listener,
} from './listeners.ts';

export interface LabelledListener extends Listener {
  /** What the listener is, for test messages: "smtp with STARTTLS", "redis with AUTH". */
  label: string;
  /** Our expected service and whether it runs inside TLS. */
  tls: boolean;
}

export async function startAllListeners(): Promise<{ listeners: LabelledListener[]; missing: string[] }> {
  const missing: string[] = [];
  const starts: [string, boolean, () => Promise<Listener>][] = [
    ['ftp', false, startFtp],
    ['smtp with STARTTLS', false, () => startSmtp(true)],
    ['smtp without STARTTLS', false, () => startSmtp(false)],
    ['telnet', false, startTelnet],
    ['vnc', false, startVnc],
    ['mysql', false, startMysql],
    ['postgresql', false, startPostgres],
    ['rdp', false, startRdp],
    ['memcached', false, startMemcached],
    ['mongodb', false, () => startMongo(false)],
    ['elasticsearch', false, startElasticsearch],
    ['docker', false, startDocker],
    ['silent', false, startSilent],
    ['flood', false, startFlood],
  ];
  if (existsSync(SSHD)) starts.push(['ssh (OpenSSH sshd)', false, startSshd]);
  else missing.push(`${SSHD} (openssh-server)`);
  if (existsSync(REDIS_SERVER)) {
    starts.push(['redis without AUTH', false, () => startRedis()]);
    starts.push(['redis with AUTH', false, () => startRedis('s3cret-netscan')]);
  } else missing.push(`${REDIS_SERVER} (redis-server)`);
  if (existsSync(OPENSSL)) starts.push(['https (openssl s_server -www)', true, startHttps]);
  else missing.push(`${OPENSSL} (openssl)`);
  if (existsSync(PYTHON3)) starts.push(['http (python3 http.server)', false, startHttp]);
  else missing.push(`${PYTHON3} (python3)`);
  const listeners = await Promise.all(starts.map(async ([label, tls, start]) => ({ ...(await start()), label, tls })));
  return { listeners, missing };
}
