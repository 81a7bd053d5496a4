/**
 * Ids and tags are text in every trace format: a JSON string is Unicode, and a CSV id or tag that is
 * not valid UTF-8 would turn into U+FFFD when written as text, so that two distinct ones became one.
 * Readers refuse such ids and tags where they first meet them.
 */

/** Offset (from `s`) of the first byte of `buf[s, e)` that is not part of valid UTF-8, or -1. */
export function invalidUtf8At(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  while (i < e && (buf[i] as number) < 0x80) i++;
  while (i < e) {
    const c = buf[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i - s;
    if (i + n >= e) return i - s; // the sequence is cut off by the end of the id
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = buf[i + k] as number;
      if ((d & 0xc0) !== 0x80) return i - s;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i - s;
    i += n + 1;
  }
  return -1;
}

/** The problem with an id that is not valid UTF-8, naming the byte. */
export function invalidIdMessage(buf: Uint8Array, s: number, at: number, what = 'id'): string {
  const byte = (buf[s + at] as number).toString(16).padStart(2, '0');
  return `${what} is not valid UTF-8 (byte 0x${byte} at byte ${at + 1} of the ${what}); ${what}s are text, so write them in UTF-8`;
}
