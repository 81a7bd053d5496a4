/**
 * Orders of record indices by integer keys, without a comparator: stable least-significant-digit
 * radix sorts, one pass per 16 bits of the largest key (digits as wide as that many passes need:
 * keys below 2^20 take two passes of 10 bits, whose counts stay in the first-level cache), each a
 * count and a scatter. Sorting by the
 * last key first and by the first key last gives the order by the keys in turn, ties in record
 * order (each pass keeps the order of the last).
 */

/** The widest digit: its counts (256 KiB) fit a second-level cache. */
const MAX_DIGIT_BITS = 16;

/** The largest of the n keys if they are all integers in [0, 2^32), else -1 (no radix order then). */
export function radixKeyMax(key: ArrayLike<number>, n: number): number {
  let max = 0;
  for (let i = 0; i < n; i++) {
    const k = key[i] as number;
    if (!(k >= 0 && k <= 0xffffffff && Number.isInteger(k))) return -1;
    if (k > max) max = k;
  }
  return max;
}

/** The record indices 0 .. n - 1 in order. */
export function identityOrder(n: number): Uint32Array {
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  return order;
}

/**
 * Buffers that sorts in turn share (an order by several keys), each as long as the orders: whichever
 * of them a sort does not return is left here for the next.
 */
export interface RadixScratch {
  /** An order buffer not holding a result. */
  spare: Uint32Array | null;
  /** The keys of a pass, beside the indices. */
  keys: Uint32Array | null;
}

/**
 * `order` (record indices) stably reordered by decreasing key[i] (ties keep their place in `order`);
 * keys are integers in [0, maxKey], maxKey < 2^32 (see {@link radixKeyMax}). Returns a new array
 * (or one from `scratch`) or `order` itself, which it may overwrite.
 */
export function radixDescending(key: ArrayLike<number>, order: Uint32Array, maxKey: number, scratch: RadixScratch = { spare: null, keys: null }): Uint32Array {
  const n = order.length;
  const keyBits = 32 - Math.clz32(maxKey);
  const passes = Math.ceil(keyBits / MAX_DIGIT_BITS);
  if (passes === 0) return order;
  const digitBits = Math.ceil(keyBits / passes);
  const mask = (1 << digitBits) - 1;
  const count = new Int32Array(mask + 1);
  // Descending by key is ascending by maxKey - key. The first pass reads the keys through the order;
  // each later one reads those the pass before wrote beside the indices; the last writes no keys.
  let keys: Uint32Array | null = null;
  let ord: Uint32Array = order;
  let ordOut: Uint32Array = scratch.spare?.length === n ? scratch.spare : new Uint32Array(n);
  for (let pass = 0, shift = 0; pass < passes; pass++, shift += digitBits) {
    count.fill(0);
    if (keys === null) {
      for (let k = 0; k < n; k++) {
        const d = ((maxKey - (key[ord[k] as number] as number)) >>> shift) & mask;
        count[d] = (count[d] as number) + 1;
      }
    } else {
      for (let k = 0; k < n; k++) {
        const d = ((keys[k] as number) >>> shift) & mask;
        count[d] = (count[d] as number) + 1;
      }
    }
    let sum = 0;
    for (let d = 0; d <= mask; d++) {
      const c = count[d] as number;
      count[d] = sum;
      sum += c;
    }
    // Two passes at most (16-bit digits of a 32-bit key): the keys of the first are the only ones kept.
    let keysOut: Uint32Array | null = null;
    if (pass + 1 < passes) keysOut = keys === null && scratch.keys?.length === n ? scratch.keys : new Uint32Array(n);
    scatter(key, keys, ord, keysOut, ordOut, count, shift, mask, maxKey);
    if (keysOut !== null) scratch.keys = keysOut;
    keys = keysOut;
    [ord, ordOut] = [ordOut, ord];
  }
  scratch.spare = ordOut;
  return ord;
}

/**
 * One pass's scatter: each index of `ord` to its digit's next place in `ordOut`, and its key to the
 * same place in `keysOut` when there is one (the keys come from `keys`, or from `key` through the
 * order when null).
 */
function scatter(
  key: ArrayLike<number>,
  keys: Uint32Array | null,
  ord: Uint32Array,
  keysOut: Uint32Array | null,
  ordOut: Uint32Array,
  count: Int32Array,
  shift: number,
  mask: number,
  maxKey: number,
): void {
  const n = ord.length;
  for (let k = 0; k < n; k++) {
    const i = ord[k] as number;
    const x = keys === null ? maxKey - (key[i] as number) : (keys[k] as number);
    const d = (x >>> shift) & mask;
    const at = count[d] as number;
    count[d] = at + 1;
    if (keysOut !== null) keysOut[at] = x;
    ordOut[at] = i;
  }
}
