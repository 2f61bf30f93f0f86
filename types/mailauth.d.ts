// Types for the mailauth modules mailscan imports by path that ship no declarations.
declare module 'mailauth/lib/parse-received.js' {
  export interface ReceivedPart {
    value: string;
    comment?: string;
  }
  export type ParsedReceived = Partial<Record<'from' | 'by' | 'with' | 'id' | 'for' | 'envelope-from' | 'tls', ReceivedPart>> & {
    timestamp?: string;
    full: string;
  };
  export function parseReceived(line: Buffer | string): ParsedReceived | false;
}
