/**
 * Just enough DER to read the RFC 3709 logotype extension, which @peculiar/x509 hands over as raw
 * bytes. Definite lengths only (DER forbids the indefinite form); anything malformed throws.
 */
export interface Tlv {
  tag: number;
  content: Uint8Array;
  /** Offset just past this element in the buffer it was read from. */
  end: number;
}

export function readTlv(bytes: Uint8Array, offset = 0): Tlv {
  const tag = bytes[offset];
  let lengthByte = bytes[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error('DER: truncated header');
  let cursor = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length form');
    length = 0;
    for (let i = 0; i < count; i += 1) {
      lengthByte = bytes[cursor + i];
      if (lengthByte === undefined) throw new Error('DER: truncated length');
      length = length * 256 + lengthByte;
    }
    cursor += count;
  }
  const end = cursor + length;
  if (end > bytes.length) throw new Error('DER: element runs past its container');
  return { tag, content: bytes.subarray(cursor, end), end };
}

/** The elements inside a constructed element's content. */
export function children(content: Uint8Array): Tlv[] {
  const elements: Tlv[] = [];
  for (let offset = 0; offset < content.length; ) {
    const element = readTlv(content, offset);
    elements.push(element);
    offset = element.end;
  }
  return elements;
}

export function decodeOid(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    }
  }
  const [first = 0, ...rest] = arcs;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...rest].join('.');
}

export function decodeAscii(content: Uint8Array): string {
  return new TextDecoder('latin1').decode(content);
}
