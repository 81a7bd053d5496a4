/**
 * Hands one allocator's allocations and deallocations to the trace builder (ids are the
 * allocation_ids in decimal, tags the kernel names or operations, sizes the requested bytes) and
 * keeps what the real allocator recorded (ptr, allocated_bytes) per allocation number.
 */
import type { TraceBuilder } from '../builder.js';
import type { StringInterner } from '../string-interner.js';
import { isAllocation } from './allocator-log.js';
import { MESSAGE_NAMES } from './messages.js';
import { grown } from '../../util/typed-arrays.js';

/** Writes a non-negative integer in decimal into `buf`; returns its length. */
function writeDecimal(buf: Buffer, n: number): number {
  let len = 0;
  do {
    buf[len++] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  } while (n > 0);
  for (let i = 0, j = len - 1; i < j; i++, j--) {
    const t = buf[i] as number;
    buf[i] = buf[j] as number;
    buf[j] = t;
  }
  return len;
}

/** `a` grown by half, or to `need` elements where that is more. */
const grownBy = (a: Float64Array<ArrayBuffer>, need: number): Float64Array<ArrayBuffer> => grown(a, Math.max(need, Math.ceil(a.length * 1.5)));

/** The builder side of an import; {@link AllocatorLog} calls it per event, in log order. */
export class EventFeed {
  /** Recorded address and allocated bytes per allocation number (NaN where the log has none). */
  address = new Float64Array(1024);
  allocated = new Float64Array(1024);
  count = 0;
  /** Allocations and deallocations without an allocation_id skipped under --lenient. */
  skippedAllocs = 0;
  skippedFrees = 0;
  private readonly idBuf = Buffer.alloc(24);
  /** Tag index in the reader's interner -> the builder's (0 unknown yet). */
  private builderTag = new Int32Array(256);

  constructor(
    private readonly builder: TraceBuilder,
    private readonly tags: StringInterner,
    private readonly lenient: boolean,
  ) {}

  /** One allocation (`id` 0: none logged) or deallocation of `allocator`. */
  event(allocator: string, type: number, id: number, size: number, step: number, tag: number, line: number, ptr: number, allocated: number): void {
    const b = this.builder;
    if (isAllocation(type)) {
      if (id === 0) {
        if (this.lenient) this.skippedAllocs++;
        else b.problem({ line, field: 'allocation_id', message: `${MESSAGE_NAMES[type]} of "${allocator}" without an allocation_id: its deallocation could not be matched to it; --lenient skips it` });
        return;
      }
      const a = b.addAllocBytes(this.idBuf, 0, writeDecimal(this.idBuf, id), size, step, 0, this.tagIndex(tag), NaN, line);
      if (a < 0) return;
      if (a >= this.address.length) {
        this.address = grownBy(this.address, a + 1);
        this.allocated = grownBy(this.allocated, a + 1);
      }
      this.address[a] = ptr;
      this.allocated[a] = allocated;
      this.count = a + 1;
      return;
    }
    if (id === 0) {
      if (!this.lenient) {
        b.problem({
          line,
          field: 'allocation_id',
          message:
            `${MESSAGE_NAMES[type]} of "${allocator}" without an allocation_id (left out when 0: this TensorFlow version or allocator gave none), ` +
            'so it cannot be matched to an allocation; --lenient skips it',
        });
        return;
      }
      // Handed on as a free of id 0, which is never live: the builder counts it with the other skipped frees.
      this.skippedFrees++;
    }
    b.addFreeBytes(this.idBuf, 0, writeDecimal(this.idBuf, id), step, -1, NaN, line);
  }

  private tagIndex(t: number): number {
    if (t === 0) return 0;
    if (t >= this.builderTag.length) this.builderTag = grown(this.builderTag, Math.max(t + 1, this.builderTag.length * 2));
    let tag = this.builderTag[t] as number;
    if (tag === 0) tag = this.builderTag[t] = this.builder.internTagString(this.tags.strings[t]);
    return tag;
  }
}
