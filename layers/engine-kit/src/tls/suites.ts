/**
 * The cipher suites tlsscan offers, with what each one means for the catalogue. The table is the
 * IANA registry's names (plus the pre-standard EXPORT1024, GOST and draft ChaCha codes that old
 * servers still accept); every property is read from the name, so a classification is never typed
 * by hand twice. `docs/tlsscan.md` lists the categories.
 */

export interface Suite {
  code: number;
  /** IANA name, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256. */
  name: string;
  /** Key exchange as named, e.g. ECDHE_RSA, DH_anon, RSA_EXPORT; 'TLS13' for TLS 1.3 suites. */
  kex: string;
  /** Bulk cipher as named, e.g. AES_128_GCM, 3DES_EDE_CBC, NULL. */
  cipher: string;
  tls13: boolean;
  nullCipher: boolean;
  anonymous: boolean;
  export: boolean;
  rc4: boolean;
  singleDes: boolean;
  /** A 64-bit block cipher (Sweet32): 3DES, IDEA. */
  block64: boolean;
  /** Ephemeral (EC)DH key exchange, or any TLS 1.3 suite. */
  forwardSecret: boolean;
  /** Finite-field ephemeral DH: the server sends a DH group worth measuring. */
  dhe: boolean;
}

export type SuiteCategory = 'null' | 'anonymous' | 'export' | 'rc4' | 'single_des';

/** What makes a suite `tls.cipher.insecure`, in the order evidence lists them. */
export function insecureReasons(suite: Suite): SuiteCategory[] {
  const reasons: SuiteCategory[] = [];
  if (suite.nullCipher) reasons.push('null');
  if (suite.anonymous) reasons.push('anonymous');
  if (suite.export) reasons.push('export');
  if (suite.rc4) reasons.push('rc4');
  if (suite.singleDes) reasons.push('single_des');
  return reasons;
}

const CAMELLIA_ARIA_KEX = ['RSA', 'DH_DSS', 'DH_RSA', 'DHE_DSS', 'DHE_RSA', 'DH_anon'];

/** [code, name without the TLS_ prefix]. Runs of regular codes are generated below. */
const NAMED: ReadonlyArray<readonly [number, string]> = [
  [0x0000, 'NULL_WITH_NULL_NULL'],
  [0x0001, 'RSA_WITH_NULL_MD5'],
  [0x0002, 'RSA_WITH_NULL_SHA'],
  [0x0003, 'RSA_EXPORT_WITH_RC4_40_MD5'],
  [0x0004, 'RSA_WITH_RC4_128_MD5'],
  [0x0005, 'RSA_WITH_RC4_128_SHA'],
  [0x0006, 'RSA_EXPORT_WITH_RC2_CBC_40_MD5'],
  [0x0007, 'RSA_WITH_IDEA_CBC_SHA'],
  [0x0008, 'RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0009, 'RSA_WITH_DES_CBC_SHA'],
  [0x000a, 'RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x000b, 'DH_DSS_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000c, 'DH_DSS_WITH_DES_CBC_SHA'],
  [0x000d, 'DH_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0x000e, 'DH_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x000f, 'DH_RSA_WITH_DES_CBC_SHA'],
  [0x0010, 'DH_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x0011, 'DHE_DSS_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0012, 'DHE_DSS_WITH_DES_CBC_SHA'],
  [0x0013, 'DHE_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0x0014, 'DHE_RSA_EXPORT_WITH_DES40_CBC_SHA'],
  [0x0015, 'DHE_RSA_WITH_DES_CBC_SHA'],
  [0x0016, 'DHE_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0x0017, 'DH_anon_EXPORT_WITH_RC4_40_MD5'],
  [0x0018, 'DH_anon_WITH_RC4_128_MD5'],
  [0x0019, 'DH_anon_EXPORT_WITH_DES40_CBC_SHA'],
  [0x001a, 'DH_anon_WITH_DES_CBC_SHA'],
  [0x001b, 'DH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0x001e, 'KRB5_WITH_DES_CBC_SHA'],
  [0x001f, 'KRB5_WITH_3DES_EDE_CBC_SHA'],
  [0x0020, 'KRB5_WITH_RC4_128_SHA'],
  [0x0021, 'KRB5_WITH_IDEA_CBC_SHA'],
  [0x0022, 'KRB5_WITH_DES_CBC_MD5'],
  [0x0023, 'KRB5_WITH_3DES_EDE_CBC_MD5'],
  [0x0024, 'KRB5_WITH_RC4_128_MD5'],
  [0x0025, 'KRB5_WITH_IDEA_CBC_MD5'],
  [0x0026, 'KRB5_EXPORT_WITH_DES_CBC_40_SHA'],
  [0x0027, 'KRB5_EXPORT_WITH_RC2_CBC_40_SHA'],
  [0x0028, 'KRB5_EXPORT_WITH_RC4_40_SHA'],
  [0x0029, 'KRB5_EXPORT_WITH_DES_CBC_40_MD5'],
  [0x002a, 'KRB5_EXPORT_WITH_RC2_CBC_40_MD5'],
  [0x002b, 'KRB5_EXPORT_WITH_RC4_40_MD5'],
  [0x002c, 'PSK_WITH_NULL_SHA'],
  [0x002d, 'DHE_PSK_WITH_NULL_SHA'],
  [0x002e, 'RSA_PSK_WITH_NULL_SHA'],
  [0x002f, 'RSA_WITH_AES_128_CBC_SHA'],
  [0x0030, 'DH_DSS_WITH_AES_128_CBC_SHA'],
  [0x0031, 'DH_RSA_WITH_AES_128_CBC_SHA'],
  [0x0032, 'DHE_DSS_WITH_AES_128_CBC_SHA'],
  [0x0033, 'DHE_RSA_WITH_AES_128_CBC_SHA'],
  [0x0034, 'DH_anon_WITH_AES_128_CBC_SHA'],
  [0x0035, 'RSA_WITH_AES_256_CBC_SHA'],
  [0x0036, 'DH_DSS_WITH_AES_256_CBC_SHA'],
  [0x0037, 'DH_RSA_WITH_AES_256_CBC_SHA'],
  [0x0038, 'DHE_DSS_WITH_AES_256_CBC_SHA'],
  [0x0039, 'DHE_RSA_WITH_AES_256_CBC_SHA'],
  [0x003a, 'DH_anon_WITH_AES_256_CBC_SHA'],
  [0x003b, 'RSA_WITH_NULL_SHA256'],
  [0x003c, 'RSA_WITH_AES_128_CBC_SHA256'],
  [0x003d, 'RSA_WITH_AES_256_CBC_SHA256'],
  [0x003e, 'DH_DSS_WITH_AES_128_CBC_SHA256'],
  [0x003f, 'DH_RSA_WITH_AES_128_CBC_SHA256'],
  [0x0040, 'DHE_DSS_WITH_AES_128_CBC_SHA256'],
  [0x0060, 'RSA_EXPORT1024_WITH_RC4_56_MD5'],
  [0x0061, 'RSA_EXPORT1024_WITH_RC2_CBC_56_MD5'],
  [0x0062, 'RSA_EXPORT1024_WITH_DES_CBC_SHA'],
  [0x0063, 'DHE_DSS_EXPORT1024_WITH_DES_CBC_SHA'],
  [0x0064, 'RSA_EXPORT1024_WITH_RC4_56_SHA'],
  [0x0065, 'DHE_DSS_EXPORT1024_WITH_RC4_56_SHA'],
  [0x0066, 'DHE_DSS_WITH_RC4_128_SHA'],
  [0x0067, 'DHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0x0068, 'DH_DSS_WITH_AES_256_CBC_SHA256'],
  [0x0069, 'DH_RSA_WITH_AES_256_CBC_SHA256'],
  [0x006a, 'DHE_DSS_WITH_AES_256_CBC_SHA256'],
  [0x006b, 'DHE_RSA_WITH_AES_256_CBC_SHA256'],
  [0x006c, 'DH_anon_WITH_AES_128_CBC_SHA256'],
  [0x006d, 'DH_anon_WITH_AES_256_CBC_SHA256'],
  [0x0080, 'GOSTR341094_WITH_28147_CNT_IMIT'],
  [0x0081, 'GOSTR341001_WITH_28147_CNT_IMIT'],
  [0x0082, 'GOSTR341094_WITH_NULL_GOSTR3411'],
  [0x0083, 'GOSTR341001_WITH_NULL_GOSTR3411'],
  [0x008a, 'PSK_WITH_RC4_128_SHA'],
  [0x008b, 'PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x008c, 'PSK_WITH_AES_128_CBC_SHA'],
  [0x008d, 'PSK_WITH_AES_256_CBC_SHA'],
  [0x008e, 'DHE_PSK_WITH_RC4_128_SHA'],
  [0x008f, 'DHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0090, 'DHE_PSK_WITH_AES_128_CBC_SHA'],
  [0x0091, 'DHE_PSK_WITH_AES_256_CBC_SHA'],
  [0x0092, 'RSA_PSK_WITH_RC4_128_SHA'],
  [0x0093, 'RSA_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0x0094, 'RSA_PSK_WITH_AES_128_CBC_SHA'],
  [0x0095, 'RSA_PSK_WITH_AES_256_CBC_SHA'],
  [0x009c, 'RSA_WITH_AES_128_GCM_SHA256'],
  [0x009d, 'RSA_WITH_AES_256_GCM_SHA384'],
  [0x009e, 'DHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0x009f, 'DHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0x00a0, 'DH_RSA_WITH_AES_128_GCM_SHA256'],
  [0x00a1, 'DH_RSA_WITH_AES_256_GCM_SHA384'],
  [0x00a2, 'DHE_DSS_WITH_AES_128_GCM_SHA256'],
  [0x00a3, 'DHE_DSS_WITH_AES_256_GCM_SHA384'],
  [0x00a4, 'DH_DSS_WITH_AES_128_GCM_SHA256'],
  [0x00a5, 'DH_DSS_WITH_AES_256_GCM_SHA384'],
  [0x00a6, 'DH_anon_WITH_AES_128_GCM_SHA256'],
  [0x00a7, 'DH_anon_WITH_AES_256_GCM_SHA384'],
  [0x00a8, 'PSK_WITH_AES_128_GCM_SHA256'],
  [0x00a9, 'PSK_WITH_AES_256_GCM_SHA384'],
  [0x00aa, 'DHE_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00ab, 'DHE_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00ac, 'RSA_PSK_WITH_AES_128_GCM_SHA256'],
  [0x00ad, 'RSA_PSK_WITH_AES_256_GCM_SHA384'],
  [0x00ae, 'PSK_WITH_AES_128_CBC_SHA256'],
  [0x00af, 'PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b0, 'PSK_WITH_NULL_SHA256'],
  [0x00b1, 'PSK_WITH_NULL_SHA384'],
  [0x00b2, 'DHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00b3, 'DHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b4, 'DHE_PSK_WITH_NULL_SHA256'],
  [0x00b5, 'DHE_PSK_WITH_NULL_SHA384'],
  [0x00b6, 'RSA_PSK_WITH_AES_128_CBC_SHA256'],
  [0x00b7, 'RSA_PSK_WITH_AES_256_CBC_SHA384'],
  [0x00b8, 'RSA_PSK_WITH_NULL_SHA256'],
  [0x00b9, 'RSA_PSK_WITH_NULL_SHA384'],
  [0x1301, 'AES_128_GCM_SHA256'],
  [0x1302, 'AES_256_GCM_SHA384'],
  [0x1303, 'CHACHA20_POLY1305_SHA256'],
  [0x1304, 'AES_128_CCM_SHA256'],
  [0x1305, 'AES_128_CCM_8_SHA256'],
  [0xc001, 'ECDH_ECDSA_WITH_NULL_SHA'],
  [0xc002, 'ECDH_ECDSA_WITH_RC4_128_SHA'],
  [0xc003, 'ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc004, 'ECDH_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xc005, 'ECDH_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xc006, 'ECDHE_ECDSA_WITH_NULL_SHA'],
  [0xc007, 'ECDHE_ECDSA_WITH_RC4_128_SHA'],
  [0xc008, 'ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc009, 'ECDHE_ECDSA_WITH_AES_128_CBC_SHA'],
  [0xc00a, 'ECDHE_ECDSA_WITH_AES_256_CBC_SHA'],
  [0xc00b, 'ECDH_RSA_WITH_NULL_SHA'],
  [0xc00c, 'ECDH_RSA_WITH_RC4_128_SHA'],
  [0xc00d, 'ECDH_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc00e, 'ECDH_RSA_WITH_AES_128_CBC_SHA'],
  [0xc00f, 'ECDH_RSA_WITH_AES_256_CBC_SHA'],
  [0xc010, 'ECDHE_RSA_WITH_NULL_SHA'],
  [0xc011, 'ECDHE_RSA_WITH_RC4_128_SHA'],
  [0xc012, 'ECDHE_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc013, 'ECDHE_RSA_WITH_AES_128_CBC_SHA'],
  [0xc014, 'ECDHE_RSA_WITH_AES_256_CBC_SHA'],
  [0xc015, 'ECDH_anon_WITH_NULL_SHA'],
  [0xc016, 'ECDH_anon_WITH_RC4_128_SHA'],
  [0xc017, 'ECDH_anon_WITH_3DES_EDE_CBC_SHA'],
  [0xc018, 'ECDH_anon_WITH_AES_128_CBC_SHA'],
  [0xc019, 'ECDH_anon_WITH_AES_256_CBC_SHA'],
  [0xc01a, 'SRP_SHA_WITH_3DES_EDE_CBC_SHA'],
  [0xc01b, 'SRP_SHA_RSA_WITH_3DES_EDE_CBC_SHA'],
  [0xc01c, 'SRP_SHA_DSS_WITH_3DES_EDE_CBC_SHA'],
  [0xc01d, 'SRP_SHA_WITH_AES_128_CBC_SHA'],
  [0xc01e, 'SRP_SHA_RSA_WITH_AES_128_CBC_SHA'],
  [0xc01f, 'SRP_SHA_DSS_WITH_AES_128_CBC_SHA'],
  [0xc020, 'SRP_SHA_WITH_AES_256_CBC_SHA'],
  [0xc021, 'SRP_SHA_RSA_WITH_AES_256_CBC_SHA'],
  [0xc022, 'SRP_SHA_DSS_WITH_AES_256_CBC_SHA'],
  [0xc023, 'ECDHE_ECDSA_WITH_AES_128_CBC_SHA256'],
  [0xc024, 'ECDHE_ECDSA_WITH_AES_256_CBC_SHA384'],
  [0xc025, 'ECDH_ECDSA_WITH_AES_128_CBC_SHA256'],
  [0xc026, 'ECDH_ECDSA_WITH_AES_256_CBC_SHA384'],
  [0xc027, 'ECDHE_RSA_WITH_AES_128_CBC_SHA256'],
  [0xc028, 'ECDHE_RSA_WITH_AES_256_CBC_SHA384'],
  [0xc029, 'ECDH_RSA_WITH_AES_128_CBC_SHA256'],
  [0xc02a, 'ECDH_RSA_WITH_AES_256_CBC_SHA384'],
  [0xc02b, 'ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
  [0xc02c, 'ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
  [0xc02d, 'ECDH_ECDSA_WITH_AES_128_GCM_SHA256'],
  [0xc02e, 'ECDH_ECDSA_WITH_AES_256_GCM_SHA384'],
  [0xc02f, 'ECDHE_RSA_WITH_AES_128_GCM_SHA256'],
  [0xc030, 'ECDHE_RSA_WITH_AES_256_GCM_SHA384'],
  [0xc031, 'ECDH_RSA_WITH_AES_128_GCM_SHA256'],
  [0xc032, 'ECDH_RSA_WITH_AES_256_GCM_SHA384'],
  [0xc033, 'ECDHE_PSK_WITH_RC4_128_SHA'],
  [0xc034, 'ECDHE_PSK_WITH_3DES_EDE_CBC_SHA'],
  [0xc035, 'ECDHE_PSK_WITH_AES_128_CBC_SHA'],
  [0xc036, 'ECDHE_PSK_WITH_AES_256_CBC_SHA'],
  [0xc037, 'ECDHE_PSK_WITH_AES_128_CBC_SHA256'],
  [0xc038, 'ECDHE_PSK_WITH_AES_256_CBC_SHA384'],
  [0xc039, 'ECDHE_PSK_WITH_NULL_SHA'],
  [0xc03a, 'ECDHE_PSK_WITH_NULL_SHA256'],
  [0xc03b, 'ECDHE_PSK_WITH_NULL_SHA384'],
  [0xc09c, 'RSA_WITH_AES_128_CCM'],
  [0xc09d, 'RSA_WITH_AES_256_CCM'],
  [0xc09e, 'DHE_RSA_WITH_AES_128_CCM'],
  [0xc09f, 'DHE_RSA_WITH_AES_256_CCM'],
  [0xc0a0, 'RSA_WITH_AES_128_CCM_8'],
  [0xc0a1, 'RSA_WITH_AES_256_CCM_8'],
  [0xc0a2, 'DHE_RSA_WITH_AES_128_CCM_8'],
  [0xc0a3, 'DHE_RSA_WITH_AES_256_CCM_8'],
  [0xc0a4, 'PSK_WITH_AES_128_CCM'],
  [0xc0a5, 'PSK_WITH_AES_256_CCM'],
  [0xc0a6, 'DHE_PSK_WITH_AES_128_CCM'],
  [0xc0a7, 'DHE_PSK_WITH_AES_256_CCM'],
  [0xc0a8, 'PSK_WITH_AES_128_CCM_8'],
  [0xc0a9, 'PSK_WITH_AES_256_CCM_8'],
  [0xc0aa, 'PSK_DHE_WITH_AES_128_CCM_8'],
  [0xc0ab, 'PSK_DHE_WITH_AES_256_CCM_8'],
  [0xc0ac, 'ECDHE_ECDSA_WITH_AES_128_CCM'],
  [0xc0ad, 'ECDHE_ECDSA_WITH_AES_256_CCM'],
  [0xc0ae, 'ECDHE_ECDSA_WITH_AES_128_CCM_8'],
  [0xc0af, 'ECDHE_ECDSA_WITH_AES_256_CCM_8'],
  [0xcc13, 'ECDHE_RSA_WITH_CHACHA20_POLY1305_OLD'],
  [0xcc14, 'ECDHE_ECDSA_WITH_CHACHA20_POLY1305_OLD'],
  [0xcc15, 'DHE_RSA_WITH_CHACHA20_POLY1305_OLD'],
  [0xcca8, 'ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xcca9, 'ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccaa, 'DHE_RSA_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccab, 'PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccac, 'ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccad, 'DHE_PSK_WITH_CHACHA20_POLY1305_SHA256'],
  [0xccae, 'RSA_PSK_WITH_CHACHA20_POLY1305_SHA256'],
];

/** Pairs of (128, 256) codes in registry order for one cipher and a list of key exchanges. */
function pairs(start: number, kexes: readonly string[], cipher128: string, cipher256: string): Array<[number, string]> {
  return kexes.flatMap((kex, i): Array<[number, string]> => [
    [start + 2 * i, `${kex}_WITH_${cipher128}`],
    [start + 2 * i + 1, `${kex}_WITH_${cipher256}`],
  ]);
}

/** Runs of six in CAMELLIA_ARIA_KEX order. */
function sixes(start: number, cipher: string): Array<[number, string]> {
  return CAMELLIA_ARIA_KEX.map((kex, i): [number, string] => [start + i, `${kex}_WITH_${cipher}`]);
}

const GENERATED: Array<[number, string]> = [
  ...sixes(0x0041, 'CAMELLIA_128_CBC_SHA'),
  ...sixes(0x0084, 'CAMELLIA_256_CBC_SHA'),
  ...sixes(0x0096, 'SEED_CBC_SHA'),
  ...sixes(0x00ba, 'CAMELLIA_128_CBC_SHA256'),
  ...sixes(0x00c0, 'CAMELLIA_256_CBC_SHA256'),
  ...pairs(
    0xc03c,
    ['RSA', 'DH_DSS', 'DH_RSA', 'DHE_DSS', 'DHE_RSA', 'DH_anon', 'ECDHE_ECDSA', 'ECDH_ECDSA', 'ECDHE_RSA', 'ECDH_RSA'],
    'ARIA_128_CBC_SHA256',
    'ARIA_256_CBC_SHA384',
  ),
  ...pairs(
    0xc050,
    ['RSA', 'DHE_RSA', 'DH_RSA', 'DHE_DSS', 'DH_DSS', 'DH_anon', 'ECDHE_ECDSA', 'ECDH_ECDSA', 'ECDHE_RSA', 'ECDH_RSA'],
    'ARIA_128_GCM_SHA256',
    'ARIA_256_GCM_SHA384',
  ),
  ...pairs(0xc064, ['PSK', 'DHE_PSK', 'RSA_PSK'], 'ARIA_128_CBC_SHA256', 'ARIA_256_CBC_SHA384'),
  ...pairs(0xc06a, ['PSK', 'DHE_PSK', 'RSA_PSK'], 'ARIA_128_GCM_SHA256', 'ARIA_256_GCM_SHA384'),
  ...pairs(0xc070, ['ECDHE_PSK'], 'ARIA_128_CBC_SHA256', 'ARIA_256_CBC_SHA384'),
  ...pairs(0xc072, ['ECDHE_ECDSA', 'ECDH_ECDSA', 'ECDHE_RSA', 'ECDH_RSA'], 'CAMELLIA_128_CBC_SHA256', 'CAMELLIA_256_CBC_SHA384'),
  ...pairs(
    0xc07a,
    [
      'RSA',
      'DHE_RSA',
      'DH_RSA',
      'DHE_DSS',
      'DH_DSS',
      'DH_anon',
      'ECDHE_ECDSA',
      'ECDH_ECDSA',
      'ECDHE_RSA',
      'ECDH_RSA',
      'PSK',
      'DHE_PSK',
      'RSA_PSK',
    ],
    'CAMELLIA_128_GCM_SHA256',
    'CAMELLIA_256_GCM_SHA384',
  ),
  ...pairs(0xc094, ['PSK', 'DHE_PSK', 'RSA_PSK', 'ECDHE_PSK'], 'CAMELLIA_128_CBC_SHA256', 'CAMELLIA_256_CBC_SHA384'),
];

function describe(code: number, short: string): Suite {
  const name = `TLS_${short}`;
  const tls13 = code >> 8 === 0x13;
  const withAt = short.indexOf('_WITH_');
  const kex = tls13 ? 'TLS13' : withAt >= 0 ? short.slice(0, withAt) : short;
  const rest = tls13 ? short : withAt >= 0 ? short.slice(withAt + 6) : '';
  // The bulk cipher is the name without its MAC suffix (SHA, SHA256, MD5, ... or the GOST MAC).
  const cipher = rest.replace(/_(SHA\d*|MD5|GOSTR3411|IMIT|OLD)$/, '').replace(/_CNT$/, '');
  const anonymous = /(^|_)anon(_|$)/.test(kex) || kex === 'NULL';
  const ephemeralDh = /^DHE_|^DH_anon|^PSK_DHE$/.test(kex);
  const ephemeralEcdh = /^ECDHE_|^ECDH_anon/.test(kex);
  return {
    code,
    name,
    kex,
    cipher,
    tls13,
    nullCipher: cipher === 'NULL' || rest === 'NULL_NULL',
    anonymous,
    export: /EXPORT/.test(kex) || /EXPORT/.test(rest),
    rc4: cipher.startsWith('RC4'),
    singleDes: /^DES(40)?_CBC(_40)?$/.test(cipher),
    block64: /^3DES_EDE_CBC$|^IDEA_CBC$/.test(cipher),
    forwardSecret: tls13 || ephemeralDh || ephemeralEcdh,
    dhe: ephemeralDh,
  };
}

/** Every suite tlsscan knows, ordered by code. */
export const SUITES: readonly Suite[] = [...NAMED, ...GENERATED]
  .map(([code, short]) => describe(code, short))
  .sort((a, b) => a.code - b.code);

const BY_CODE = new Map(SUITES.map((suite) => [suite.code, suite]));

/** The suite for a code, or a placeholder naming the code (a server may pick one we did not list). */
export function suiteByCode(code: number): Suite {
  return BY_CODE.get(code) ?? describe(code, `UNKNOWN_0x${code.toString(16).padStart(4, '0')}`);
}

/** Suites a TLS 1.2-or-older ClientHello offers. */
export const LEGACY_SUITES: readonly Suite[] = SUITES.filter((suite) => !suite.tls13);
/** TLS 1.3 suites. */
export const TLS13_SUITES: readonly Suite[] = SUITES.filter((suite) => suite.tls13);

/** SSLv2 cipher kinds (3 bytes each); a server that answers any of them speaks SSLv2. */
export const SSLV2_CIPHER_KINDS: ReadonlyArray<readonly [number, string]> = [
  [0x010080, 'SSL_CK_RC4_128_WITH_MD5'],
  [0x020080, 'SSL_CK_RC4_128_EXPORT40_WITH_MD5'],
  [0x030080, 'SSL_CK_RC2_128_CBC_WITH_MD5'],
  [0x040080, 'SSL_CK_RC2_128_CBC_EXPORT40_WITH_MD5'],
  [0x050080, 'SSL_CK_IDEA_128_CBC_WITH_MD5'],
  [0x060040, 'SSL_CK_DES_64_CBC_WITH_MD5'],
  [0x0700c0, 'SSL_CK_DES_192_EDE3_CBC_WITH_MD5'],
];
