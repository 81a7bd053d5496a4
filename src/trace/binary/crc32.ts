import { createRequire } from 'node:module';

type Crc32 = (data: Uint8Array, value?: number) => number;

const nodeRequire = createRequire(import.meta.url);
/** Node's CRC-32 (zlib's, Node 20.15 and later) when the runtime has it, else null; undefined until asked. */
let native: Crc32 | null | undefined;

/**
 * Loaded on the first CRC, not with this module: `node:zlib` loads Node's streams, some milliseconds
 * of the start-up of a replay of a binary trace, which reads its sections without checking their CRCs.
 */
function nativeCrc32(): Crc32 | null {
  if (native === undefined) native = (nodeRequire('node:zlib') as { crc32?: Crc32 }).crc32 ?? null;
  return native;
}

let table: Uint32Array | undefined;

function tableOf(): Uint32Array {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/**
 * The CRC-32 (ISO-HDLC, as zlib, PNG and gzip compute it) of `data`, continuing from `crc` (the CRC of
 * the bytes before it; 0 to start).
 */
export function crc32(data: Uint8Array, crc = 0): number {
  const fast = nativeCrc32();
  if (fast) return fast(data, crc) >>> 0;
  const t = tableOf();
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = (t[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}
