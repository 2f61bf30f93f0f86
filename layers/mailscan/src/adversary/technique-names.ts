/**
 * The adversary techniques a scan accepts (`--technique`) and the surfaces each turns on. A module
 * of its own, importing nothing: the CLI's argument parser needs these names, and reaching them
 * through techniques.ts put the catalogue and node:crypto into every command's start-up,
 * `--version` included.
 */
export const TECHNIQUES = ['T1589.002', 'T1598'] as const;
export type Technique = (typeof TECHNIQUES)[number];

export const TECHNIQUE_SURFACES: Record<Technique, { discover: boolean; leak: boolean }> = {
  // Gather victim email addresses: which addresses exist, and whether the MX gives them all away.
  'T1589.002': { discover: true, leak: false },
  // Phishing for information: lookalike infrastructure and the sender reputation to phish with.
  T1598: { discover: false, leak: true },
};
