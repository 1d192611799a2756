/**
 * Recognising protobuf payloads from their first bytes. Protobuf has no magic number, so
 * the head is parsed as wire data and the field numbers and wire types of the first
 * top-level field and of the message inside it are matched against each format's schema.
 */
export interface WireField {
  number: number;
  wire: number;
}

/** The fields of the first top-level length-delimited field's payload (as far as the head goes). */
export function sniffFirstMessage(
  head: Uint8Array,
): { outer: WireField; inner: WireField[] } | null {
  let at = 0;
  const varint = (limit: number): number | null => {
    let result = 0;
    let shift = 0;
    while (at < limit && shift < 49) {
      const b = head[at++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    return null;
  };
  const tag = varint(head.length);
  if (tag === null || tag >>> 3 === 0 || (tag & 7) !== 2) return null;
  const length = varint(head.length);
  if (length === null || length === 0) return null;
  const end = Math.min(head.length, at + length);
  const inner: WireField[] = [];
  while (at < end && inner.length < 16) {
    const t = varint(end);
    if (t === null || t >>> 3 === 0) break;
    const wire = t & 7;
    inner.push({ number: Math.floor(t / 8), wire });
    if (wire === 0) {
      if (varint(end) === null) break;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const n = varint(end);
      if (n === null) break;
      at += n;
    } else return null;
  }
  if (inner.length === 0) return null;
  return { outer: { number: tag >>> 3, wire: 2 }, inner };
}

/** Whether every inner field is one of `allowed` (number → wire type). */
export function fieldsWithin(fields: WireField[], allowed: Record<number, number>): boolean {
  return fields.every((f) => allowed[f.number] === f.wire);
}

/** The first top-level fields of the head (number, wire type), up to `max` or the head's end. */
export function topLevelFields(head: Uint8Array, max = 16): WireField[] {
  const out: WireField[] = [];
  let at = 0;
  const varint = (): number | null => {
    let result = 0;
    let shift = 0;
    while (at < head.length && shift < 64) {
      const b = head[at++]!;
      if (shift < 49) result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    return null;
  };
  while (at < head.length && out.length < max) {
    const tag = varint();
    if (tag === null || tag < 8) break;
    const wire = tag % 8;
    out.push({ number: Math.floor(tag / 8), wire });
    if (wire === 0) {
      if (varint() === null) break;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const n = varint();
      if (n === null) break;
      at += n;
    } else return [];
    // A field running past the end of a payload shorter than the head is not protobuf.
    if (at > head.length && head.length < FULL_HEAD) return [];
  }
  return out;
}

/** The head size detection gets; a shorter head is the whole payload. */
const FULL_HEAD = 64 * 1024;
