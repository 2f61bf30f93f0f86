/**
 * The checks an uploaded DMARC report or message passes before a scan reads it, shared with the
 * service's artifact check so an upload is refused with the scanner's own reason (docs/artifacts.md).
 */
export { HEADER_LIMITS, HeaderInputError } from './header/limits.ts';
export { readHeaderFields } from './header/message-header.ts';
export { RUA_LIMITS, RuaInputError } from './rua/limits.ts';
export { readReportFile } from './rua/unpack.ts';
