/**
 * m365scan's settings (DESIGN §11's fixed names): the Microsoft endpoints come from the deployment,
 * never from a scope. `M365SCAN_LOGIN_URL` is the base serving the OpenID configuration,
 * getuserrealm.srf and GetCredentialType; `M365SCAN_NAMESERVERS` the recursive resolvers (as
 * `MAILSCAN_NAMESERVERS`); `EXTRA_CA_FILE` a PEM bundle trusted beside Node's roots.
 */
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import { parseNameservers, systemNameservers, type Nameserver } from '../../../lib/dns/nameservers.ts';

export const DEFAULT_LOGIN_URL = 'https://login.microsoftonline.com';
const REQUEST_TIMEOUT_MS = 10_000;

export interface M365Settings {
  /** The login base without a trailing slash. */
  loginUrl: string;
  nameservers: Nameserver[];
  /** Trust anchors for https: Node's roots plus EXTRA_CA_FILE; undefined for Node's own. */
  tlsCa?: string[];
  /** One HTTP response's time bound (M365SCAN_REQUEST_TIMEOUT_MS, 200 ms to 60 s; 10 s by default). */
  requestTimeoutMs: number;
  /** One DNS attempt's wait (M365SCAN_DNS_TIMEOUT_MS, 100 ms to 10 s; 2 s by default). */
  dnsTimeoutMs: number;
}

/** The settings, or a message saying which one is wrong (the scan cannot start). */
export async function readSettings(env: Readonly<Record<string, string | undefined>>): Promise<M365Settings | string> {
  const loginText = env.M365SCAN_LOGIN_URL?.trim() || DEFAULT_LOGIN_URL;
  let login: URL;
  try {
    login = new URL(loginText);
  } catch {
    return `M365SCAN_LOGIN_URL is not a URL: ${loginText.slice(0, 200)}`;
  }
  if (login.protocol !== 'https:') return 'M365SCAN_LOGIN_URL must be an https:// URL';
  let nameservers = systemNameservers();
  if (env.M365SCAN_NAMESERVERS?.trim()) {
    const parsed = parseNameservers([env.M365SCAN_NAMESERVERS]);
    if (parsed === null) return 'M365SCAN_NAMESERVERS must be IP[:PORT] entries separated by commas';
    nameservers = parsed;
  }
  if (nameservers.length === 0) return 'no nameserver: set M365SCAN_NAMESERVERS';
  let tlsCa: string[] | undefined;
  if (env.EXTRA_CA_FILE) {
    try {
      tlsCa = [...rootCertificates, await readFile(env.EXTRA_CA_FILE, 'utf8')];
    } catch (error) {
      return `EXTRA_CA_FILE cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
  }
  return {
    loginUrl: login.href.replace(/\/+$/, ''),
    nameservers,
    tlsCa,
    requestTimeoutMs: bounded(env.M365SCAN_REQUEST_TIMEOUT_MS, 200, 60_000, REQUEST_TIMEOUT_MS),
    dnsTimeoutMs: bounded(env.M365SCAN_DNS_TIMEOUT_MS, 100, 10_000, 2_000),
  };
}

function bounded(text: string | undefined, min: number, max: number, fallback: number): number {
  const value = Number(text);
  return text !== undefined && Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}
