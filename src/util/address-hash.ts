/**
 * The slot of an address (an integer from 0 to 2^53) in an open-addressing table of `mask + 1`
 * slots: its two 32-bit halves mixed, then murmur3's finaliser, so that addresses a page or a
 * segment apart spread over the table.
 */
export function addressSlot(addr: number, mask: number): number {
  const lo = addr >>> 0;
  const hi = (addr / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 13;
  return h & mask;
}
