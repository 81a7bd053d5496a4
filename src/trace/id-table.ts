/**
 * Allocation ids stored as bytes in one arena, with an open-addressing hash index from id to its
 * latest allocation: interning costs no JS string per event, and 10^7 ids take tens of MiB rather
 * than hundreds. Strings are made only when someone asks for an id (reports, writers).
 */

const EMPTY = -1;

/** FNV-1a over bytes [s, e). */
export function hashBytes(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return h | 0;
}

const encoder = new TextEncoder();

/** Grows a typed array to at least `need` elements (1.5x steps). */
function grown<T extends Uint8Array | Uint32Array | Int32Array>(a: T, need: number): T {
  let cap = a.length;
  while (cap < need) cap = Math.ceil(cap * 1.5) + 16;
  const b = new (a.constructor as { new (n: number): T })(cap);
  b.set(a);
  return b;
}

/** The ids of a trace's allocations, indexed by allocation number. */
export class IdTable {
  private bytes = new Uint8Array(1 << 12);
  private view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
  private used = 0;
  /** offs[a] is where id a starts; offs[a + 1] where it ends. */
  private offs = new Uint32Array(1 << 10);
  private hashes = new Int32Array(1 << 10);
  private slots = new Int32Array(1 << 11).fill(EMPTY);
  private mask = (1 << 11) - 1;
  private keys = 0;
  /** Number of allocations. */
  length = 0;

  /** The id of allocation `a` as text. */
  get(a: number): string {
    return this.view.toString('utf8', this.offs[a], this.offs[a + 1]);
  }

  /** Every id, in allocation order (tests, small traces). */
  toArray(): string[] {
    const out: string[] = [];
    for (let a = 0; a < this.length; a++) out.push(this.get(a));
    return out;
  }

  /** Bytes of the id arena (for memory figures). */
  get byteLength(): number {
    return this.bytes.byteLength + this.offs.byteLength + this.hashes.byteLength + this.slots.byteLength;
  }

  /** Slot of the last {@link IdTable.find}, reused by an {@link IdTable.add} of the same key. */
  private lastSlot = -1;

  /** The latest allocation whose id is bytes [s, e) of `buf`, or -1. */
  find(buf: Uint8Array, s: number, e: number, h: number): number {
    const slot = this.slotOf(buf, s, e, h);
    this.lastSlot = slot;
    return this.slots[slot] as number;
  }

  /**
   * Adds an allocation with the id in bytes [s, e) of `buf`; it becomes that id's latest. When the
   * last call was a `find` of the same key, pass `afterFind` to skip a second probe.
   */
  add(buf: Uint8Array, s: number, e: number, h: number, afterFind = false): number {
    const a = this.length++;
    const n = e - s;
    if (this.used + n > this.bytes.length) {
      this.bytes = grown(this.bytes, this.used + n);
      this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
    }
    const bytes = this.bytes;
    const at = this.used;
    for (let k = 0; k < n; k++) bytes[at + k] = buf[s + k] as number;
    if (a + 2 > this.offs.length) this.offs = grown(this.offs, a + 2);
    if (a + 1 > this.hashes.length) this.hashes = grown(this.hashes, a + 1);
    this.offs[a] = this.used;
    this.used += n;
    this.offs[a + 1] = this.used;
    this.hashes[a] = h;
    const slot = afterFind ? this.lastSlot : this.slotOf(buf, s, e, h);
    if (this.slots[slot] === EMPTY) {
      this.slots[slot] = a;
      if (++this.keys * 2 > this.slots.length) this.rehash();
    } else {
      this.slots[slot] = a;
    }
    return a;
  }

  /**
   * Makes room for `allocations` allocations without further growth of the offsets, the hashes and
   * (at the mean id length so far) the arena. The hash slots still double as distinct ids arrive: an
   * estimate a little high would double them once too often.
   */
  reserve(allocations: number): void {
    if (allocations <= this.length) return;
    if (allocations + 1 > this.offs.length) this.offs = grown(this.offs, allocations + 1);
    if (allocations > this.hashes.length) this.hashes = grown(this.hashes, allocations);
    if (this.length > 0) {
      const bytes = Math.ceil((this.used / this.length) * allocations);
      if (bytes > this.bytes.length) {
        this.bytes = grown(this.bytes, bytes);
        this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
      }
    }
  }

  private slotOf(buf: Uint8Array, s: number, e: number, h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const n = e - s;
    let i = h & mask;
    for (;;) {
      const a = slots[i] as number;
      if (a === EMPTY) return i;
      if (this.hashes[a] === h) {
        const o = this.offs[a] as number;
        if ((this.offs[a + 1] as number) - o === n) {
          let k = 0;
          const bytes = this.bytes;
          while (k < n && bytes[o + k] === buf[s + k]) k++;
          if (k === n) return i;
        }
      }
      i = (i + 1) & mask;
    }
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (const a of this.slots) {
      if (a === EMPTY) continue;
      let i = (this.hashes[a] as number) & mask;
      while (slots[i] !== EMPTY) i = (i + 1) & mask;
      slots[i] = a;
    }
    this.slots = slots;
    this.mask = mask;
  }

  /**
   * The table again after a structured clone (posting a trace to a worker thread keeps its fields but
   * not its class, and turns the Buffer view of the arena into a plain Uint8Array).
   */
  static fromClone(cloned: IdTable): IdTable {
    const t = Object.assign(Object.create(IdTable.prototype) as IdTable, cloned);
    t.view = Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
    return t;
  }

  /** Releases growth slack once the trace is complete. */
  trim(): void {
    this.bytes = this.bytes.slice(0, this.used);
    this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
    this.offs = this.offs.slice(0, this.length + 1);
    this.hashes = this.hashes.slice(0, this.length);
  }
}

/**
 * Interned strings (tags) keyed by their bytes: a repeated tag costs a hash and a compare, and its
 * string is made once.
 */
export class StringInterner {
  /** index -> string; index 0 is the empty string. */
  readonly strings: string[] = [''];
  /** Keys in the same order as `strings`, so an entry's number is its index. */
  private readonly keys = new IdTable();

  constructor() {
    const empty = new Uint8Array(0);
    this.keys.add(empty, 0, 0, hashBytes(empty, 0, 0));
  }

  /** Index of the string in bytes [s, e) of `buf`, adding it when new. */
  intern(buf: Uint8Array, s: number, e: number): number {
    const h = hashBytes(buf, s, e);
    const a = this.keys.find(buf, s, e, h);
    if (a >= 0) return a;
    this.strings.push(Buffer.from(buf.buffer, buf.byteOffset + s, e - s).toString('utf8'));
    return this.keys.add(buf, s, e, h, true);
  }

  /** Index of a string, adding it when new. */
  internString(text: string): number {
    const b = encoder.encode(text);
    return this.intern(b, 0, b.length);
  }
}
