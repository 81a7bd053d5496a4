/**
 * Allocation ids stored as bytes in one arena, with an open-addressing hash index from id to its
 * latest allocation: interning costs no JS string per event, and 10^7 ids take tens of MiB rather
 * than hundreds. Strings are made only when someone asks for an id (reports, writers).
 *
 * Ids written as plain decimal numbers (`0`, `17`, `500127`: no sign, no leading zero), as most
 * traces number their tensors, skip hashing: a direct table indexed by the number holds each one's
 * latest allocation, as long as the numbers stay within a few times the count of allocations (a
 * sparse number, a pointer say, goes through the hash index like any other id). So do ids made of a
 * short prefix and such a number (`w0`, `g4980215`, see id-prefix.ts) while the table is in number mode.
 */

import { fitted, grown, newColumn } from './columns.js';
import { decimalId, NOT_DECIMAL, writeDecimal } from './id-decimal.js';
import { EMPTY, hashBytes, IdArena } from './id-arena.js';
import { IdPrefixes, prefixedNumber, prefixEnd } from './id-prefix.js';

export { decimalId, hashBytes, NOT_DECIMAL, writeDecimal };

/** {@link IdTable.latestDecimal}: the ids so far, or this one, need the general path. */
export const NOT_SIMPLE = -2;

/**
 * The ids of a trace's allocations, indexed by allocation number.
 *
 * Number mode: while every id is a plain decimal number, or a prefix and a number, held by the direct
 * table (one allocation's number never shares its number with another prefix's), an allocation's id
 * is stored as that number (4 bytes) and a prefix index (1 byte, when there are prefixes); the first
 * other id moves them all to the byte arena, and the prefixed ones to the hash index.
 */
export class IdTable extends IdArena {
  /** Number mode: the id of each allocation as a number; null once ids are kept as bytes. */
  private values: Uint32Array | null;
  /** Number mode: each allocation's prefix index, or null while every id is a plain number. */
  private prefixOf: Uint8Array | null = null;
  private prefixes = new IdPrefixes();
  /** direct[v]: the latest allocation of the decimal id v (see {@link decimalId}), or EMPTY. */
  private direct = new Int32Array(0);
  /**
   * Number mode, while allocation a's id is the number a for every a (tensors numbered in order, ids
   * never reused): `direct` is then the identity, read without being stored (a table per id is
   * memory, fresh pages, on the reading thread). The first other id stores it ({@link leaveIdentity}).
   */
  private identity = true;
  /** True once a decimal id went through the hash index (the direct table was too small for it). */
  private decimalsHashed = false;
  /** The largest decimal id in the direct table (-1: none). */
  private maxDirect = -1;
  /** Whether the last {@link IdTable.lookup} probed the hash index, and with which hash. */
  private probed = false;
  private probedHash = 0;

  /** @param reserveAllocs how many allocations to reserve room for (a larger table copies once more). */
  constructor(reserveAllocs = 2 ** 26) {
    super(reserveAllocs);
    this.values = newColumn(Uint32Array, 1 << 10, reserveAllocs);
  }

  /** The id of allocation `a` as text. */
  get(a: number): string {
    const values = this.values;
    if (values) return this.prefixOf ? (this.prefixes.texts[this.prefixOf[a] as number] as string) + String(values[a]) : String(values[a]);
    return this.view.toString('utf8', this.offs[a], this.offs[a + 1]);
  }

  /**
   * Writes the id of allocation `a` as UTF-8 into `out` at `pos` (which must have room for it: 32 bytes
   * for a number, {@link IdTable.bytesOf} otherwise) and returns the position after it. No string is made.
   */
  writeId(a: number, out: Uint8Array, pos: number): number {
    const values = this.values;
    if (!values) {
      const s = this.offs[a] as number;
      const e = this.offs[a + 1] as number;
      out.set(this.bytes.subarray(s, e), pos);
      return pos + e - s;
    }
    if (this.prefixOf) {
      const p = this.prefixes.bytesOf(this.prefixOf[a] as number);
      out.set(p, pos);
      pos += p.length;
    }
    return writeDecimal(values[a] as number, out, pos);
  }

  /**
   * While every id is a plain decimal number (number mode, no prefixes): the table's column of them,
   * indexed by allocation, to read and not to change (writers format them as numbers); else null.
   */
  plainNumbers(): Uint32Array | null {
    return this.prefixOf ? null : this.values;
  }

  /** The number of bytes of allocation `a`'s id. */
  bytesOf(a: number): number {
    const values = this.values;
    if (!values) return (this.offs[a + 1] as number) - (this.offs[a] as number);
    return (this.prefixOf ? this.prefixes.bytesOf(this.prefixOf[a] as number).length : 0) + 11;
  }

  /** Every id, in allocation order (tests, small traces). */
  toArray(): string[] {
    const out: string[] = [];
    for (let a = 0; a < this.length; a++) out.push(this.get(a));
    return out;
  }

  /** Bytes of the id arena (for memory figures). */
  get byteLength(): number {
    return (
      (this.values?.byteLength ?? 0) +
      (this.prefixOf?.byteLength ?? 0) +
      this.bytes.byteLength +
      this.offs.byteLength +
      this.hashes.byteLength +
      this.slots.byteLength +
      this.direct.byteLength
    );
  }

  /**
   * The latest allocation whose id is bytes [s, e) of `buf`, or -1. `value` is the id's
   * {@link decimalId} (pass it when the caller has it already: it saves hashing).
   */
  lookup(buf: Uint8Array, s: number, e: number, value = decimalId(buf, s, e)): number {
    if (this.values) {
      // Number mode: nothing is in the hash index, every id is a (prefix, number) of the direct table.
      this.probed = false;
      let prefix = 0;
      if (value < 0) {
        value = prefixedNumber(buf, s, e);
        if (value < 0) return EMPTY;
        prefix = this.prefixes.indexOf(buf, s, prefixEnd, false);
        if (prefix < 0) return EMPTY;
      }
      const a = this.identity ? (value < this.length ? value : EMPTY) : value < this.direct.length ? (this.direct[value] as number) : EMPTY;
      return a !== EMPTY && (this.prefixOf ? (this.prefixOf[a] as number) : 0) === prefix ? a : EMPTY;
    }
    if (value >= 0) {
      if (value < this.direct.length) {
        const a = this.direct[value] as number;
        if (a !== EMPTY || !this.decimalsHashed) return a;
      } else if (!this.decimalsHashed) {
        this.probed = false;
        return EMPTY;
      }
    }
    const h = hashBytes(buf, s, e);
    this.probed = true;
    this.probedHash = h;
    return this.find(buf, s, e, h);
  }

  /**
   * Adds an allocation with the id in bytes [s, e) of `buf` (its {@link decimalId} is `value`); it
   * becomes that id's latest. `afterLookup`: the last call was a {@link IdTable.lookup} of this id
   * (its probe of the hash index is reused).
   */
  insert(buf: Uint8Array, s: number, e: number, value = decimalId(buf, s, e), afterLookup = false): number {
    if (this.values) {
      const a = this.insertNumber(buf, s, e, value);
      if (a >= 0) return a;
      this.materialize();
    }
    if (value >= 0 && (value < this.direct.length || this.growDirect(value))) {
      const a = this.append(buf, s, e, 0);
      this.direct[value] = a;
      if (value > this.maxDirect) this.maxDirect = value;
      return a;
    }
    if (value >= 0) this.decimalsHashed = true;
    if (afterLookup && this.probed) return this.add(buf, s, e, this.probedHash, true);
    return this.add(buf, s, e, hashBytes(buf, s, e));
  }

  /**
   * Adds an allocation whose id (bytes [s, e) of `buf`, not a plain decimal number) no allocation had
   * before, as an importer that makes its ids unique knows: the id is stored, and put in the hash
   * index only when an id is next looked up or inserted (a trace built so may never be).
   */
  appendNew(buf: Uint8Array, s: number, e: number): number {
    this.materialize();
    if (this.unindexedFrom < 0) this.unindexedFrom = this.length;
    return this.append(buf, s, e, 0);
  }

  /**
   * The latest allocation of the decimal id `value` (its {@link decimalId}, at least 0), or -1 when
   * there is none, while every id so far is a plain decimal number and `value` fits the direct table;
   * {@link NOT_SIMPLE} otherwise ({@link IdTable.lookup} and {@link IdTable.insert} then answer).
   */
  latestDecimal(value: number): number {
    if (this.identity) return value < this.length ? value : value === this.length ? EMPTY : NOT_SIMPLE;
    if (this.values === null || this.prefixOf !== null || value >= this.direct.length) return NOT_SIMPLE;
    return this.direct[value] as number;
  }

  /**
   * {@link IdTable.insert} of a decimal id for which {@link IdTable.latestDecimal} just answered
   * something else than {@link NOT_SIMPLE} (and number mode's own insertion, the prefix set after).
   */
  addDecimal(value: number): number {
    if (this.identity && value !== this.length) this.leaveIdentity();
    const a = this.length++;
    if (a >= (this.values as Uint32Array).length) this.reserve(Math.ceil((this.values as Uint32Array).length * 1.5) + 16);
    (this.values as Uint32Array)[a] = value;
    if (!this.identity) this.direct[value] = a;
    if (value > this.maxDirect) this.maxDirect = value;
    return a;
  }

  /** Stores the identity that {@link identity} kept implicit: the direct table from now on. */
  private leaveIdentity(): void {
    this.identity = false;
    const n = this.length;
    const direct = new Int32Array(Math.max(n + 1, Math.ceil(n * 1.5), 1024));
    for (let a = 0; a < n; a++) direct[a] = a;
    direct.fill(EMPTY, n);
    this.direct = direct;
  }

  /** Number mode: adds the id as (prefix, number) and returns its allocation, or -1 when it cannot be held so. */
  private insertNumber(buf: Uint8Array, s: number, e: number, value: number): number {
    if (this.identity) {
      if (value === this.length) return this.addDecimal(value);
      this.leaveIdentity();
    }
    let prefix = 0;
    let v = value;
    if (v < 0) {
      v = prefixedNumber(buf, s, e);
      if (v < 0) return -1;
      prefix = this.prefixes.indexOf(buf, s, prefixEnd, true);
      if (prefix < 0) return -1;
    }
    if (!(v < this.direct.length || this.growDirect(v))) return -1;
    const prev = this.direct[v] as number;
    // One number, one prefix: another prefix's id with this number leaves number mode.
    if (prev !== EMPTY && (this.prefixOf ? (this.prefixOf[prev] as number) : 0) !== prefix) return -1;
    const a = this.addDecimal(v);
    if (prefix !== 0 && !this.prefixOf) this.prefixOf = newColumn(Uint8Array, (this.values as Uint32Array).length, this.reserveAllocs);
    if (this.prefixOf) this.prefixOf[a] = prefix;
    return a;
  }

  /** Grows the direct table to hold `value` when it stays dense (a few slots per allocation). */
  private growDirect(value: number): boolean {
    if (value >= 4 * this.length + 65536) return false;
    this.resizeDirect(Math.max(value + 1, Math.ceil(this.direct.length * 1.5), 1024));
    return true;
  }

  private resizeDirect(cap: number): void {
    const next = new Int32Array(cap);
    next.set(this.direct);
    next.fill(EMPTY, this.direct.length);
    this.direct = next;
  }

  /**
   * Leaves number mode: writes every id so far into the byte arena; prefixed ids leave the direct
   * table (which holds plain numbers only from now on) for the hash index.
   */
  private materialize(): void {
    const values = this.values;
    if (!values) return;
    if (this.identity) this.leaveIdentity();
    const prefixOf = this.prefixOf;
    this.values = null;
    this.prefixOf = null;
    const n = this.length;
    this.length = 0;
    const r = this.reserveAllocs;
    this.offs = newColumn(Uint32Array, Math.max(values.length, n) + 1, r + 1);
    this.hashes = newColumn(Int32Array, Math.max(values.length, n), r);
    this.bytes = newColumn(Uint8Array, Math.max(1 << 12, n * 12), r * 12);
    this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
    const id = new Uint8Array(32);
    for (let a = 0; a < n; a++) {
      let v = values[a] as number;
      const prefix = prefixOf ? (prefixOf[a] as number) : 0;
      const p = this.prefixes.bytesOf(prefix);
      let k = 32;
      do {
        id[--k] = 0x30 + (v % 10);
        v = Math.floor(v / 10);
      } while (v > 0);
      k -= p.length;
      id.set(p, k);
      if (prefix === 0) {
        this.append(id, k, 32, 0);
      } else {
        this.direct[values[a] as number] = EMPTY;
        this.add(id, k, 32, hashBytes(id, k, 32));
      }
    }
  }

  /**
   * Adds an allocation with the id in bytes [s, e) of `buf` to the hash index; it becomes that id's
   * latest. When the last call was a `find` of the same key, pass `afterFind` to skip a second probe.
   */
  add(buf: Uint8Array, s: number, e: number, h: number, afterFind = false): number {
    this.materialize();
    return this.addHashed(buf, s, e, h, afterFind);
  }

  /**
   * Makes room for `allocations` allocations without further growth of the ids (at the mean id
   * length so far for the arena) and of the direct table (at the largest decimal id so far, scaled).
   * The hash slots still double as distinct ids arrive: an estimate a little high would double them
   * once too often.
   */
  reserve(allocations: number): void {
    if (allocations <= this.length) return;
    if (this.maxDirect >= 0 && !this.identity) {
      // Decimal ids: the largest so far, scaled as the allocations are (ids numbered in order).
      const want = Math.min(Math.ceil(((this.maxDirect + 1) * allocations) / Math.max(1, this.length)), 4 * allocations + 65536);
      if (want > this.direct.length) this.resizeDirect(want);
    }
    const values = this.values;
    if (values) {
      if (allocations > values.length) this.values = grown(values, allocations, this.reserveAllocs);
      if (this.prefixOf && allocations > this.prefixOf.length) this.prefixOf = grown(this.prefixOf, allocations, this.reserveAllocs);
      return;
    }
    if (allocations + 1 > this.offs.length) this.offs = grown(this.offs, allocations + 1, this.reserveAllocs + 1);
    if (allocations > this.hashes.length) this.hashes = grown(this.hashes, allocations, this.reserveAllocs);
    if (this.length > 0) {
      const bytes = Math.ceil((this.used / this.length) * allocations);
      if (bytes > this.bytes.length) {
        this.bytes = grown(this.bytes, bytes, this.reserveAllocs * 12);
        this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.length);
      }
    }
  }

  /**
   * The table again after a structured clone (posting a trace to a worker thread keeps its fields but
   * not its class, and turns the Buffer view of the arena into a plain Uint8Array).
   */
  static fromClone(cloned: IdTable): IdTable {
    const t = Object.assign(Object.create(IdTable.prototype) as IdTable, cloned);
    t.view = Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
    t.prefixes = IdPrefixes.of(cloned.prefixes.texts);
    return t;
  }

  /**
   * What another thread needs to read the ids so far (see {@link IdTable.reading}): the id columns,
   * which share memory with this table's when they grow in place.
   */
  shareable(): SharedIds {
    return { values: this.values, prefixOf: this.prefixOf, prefixes: this.prefixes.texts, bytes: this.bytes, offs: this.offs, length: this.length };
  }

  /** A table that reads the ids of a {@link IdTable.shareable} (it answers `get`, not lookups). */
  static reading(shared: SharedIds): IdTable {
    const t = new IdTable(16);
    // No lookups here: the identity is not assumed of another table's ids.
    t.identity = false;
    t.values = shared.values;
    t.prefixOf = shared.prefixOf;
    t.prefixes = IdPrefixes.of(shared.prefixes);
    t.bytes = shared.bytes;
    t.view = Buffer.from(shared.bytes.buffer, shared.bytes.byteOffset, shared.bytes.byteLength);
    t.offs = shared.offs;
    t.length = shared.length;
    return t;
  }

  /** Releases growth slack once the trace is complete. */
  trim(): void {
    if (this.values) {
      this.values = fitted(this.values, this.length);
      if (this.prefixOf) this.prefixOf = fitted(this.prefixOf, this.length);
      return;
    }
    this.bytes = fitted(this.bytes, this.used);
    this.view = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
    this.offs = fitted(this.offs, this.length + 1);
    this.hashes = fitted(this.hashes, this.length);
  }
}

/** The id columns of a table, as {@link IdTable.shareable} hands them to another thread. */
export interface SharedIds {
  values: Uint32Array | null;
  prefixOf: Uint8Array | null;
  prefixes: string[];
  bytes: Uint8Array;
  offs: Uint32Array;
  length: number;
}

export { StringInterner } from './string-interner.js';
