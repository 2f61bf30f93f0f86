/** vdiscan's manifest (DESIGN §11, §21; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { VdiScope } from './src/scope.ts';

const manifest = {
  name: 'vdiscan',
  scanTypes: ['vdi'],
  settingsPrefix: 'VDISCAN_',
  status: 'beta',
  targetKind: 'host_port_or_url',
  scope: () => VdiScope,
  catalogue: () => catalogue,
  // Six ports; an RDP port with TLS takes tlsscan's connections 200 ms apart (7.9 s on loopback xrdp): far inside 5 minutes.
  resourceClass: 'standard',
  // Reads are capped at 64 KiB a connection, 4 ports at once: peak RSS 61 MB (bench:vdi), 72 MB with RDP's TLS scan.
  memoryMbPerTarget: 192,
  entry: 'src/bin/vdiscan.ts',
  bundleBudgetKiB: 240, // 208 KiB
  testNeeds: {
    // xrdp needs no sesman for negotiation; Xvfb is the shadow server's screen; vncpasswd writes Xvnc's password file.
    debian: ['xrdp', 'freerdp2-x11', 'freerdp2-shadow-x11', 'tigervnc-standalone-server', 'tigervnc-tools', 'xvfb', 'nmap', 'coreutils'],
    binaries: ['xrdp', 'xfreerdp', 'freerdp-shadow-cli', 'Xvnc', 'vncpasswd', 'Xvfb', 'nmap', 'stdbuf'],
  },
  doc: 'docs/vdiscan.md',
  summary: 'vdi: RDP security negotiation (NLA, standard security, encryption, NTLM disclosure, TLS), VNC security types, desktop gateways',
} as const satisfies EngineManifest;

export default manifest;
