/**
 * The messages of TensorFlow's memory log (tensorflow/core/framework/log_memory.proto, printed by
 * LogMemory in log_memory.cc as `__LOG_MEMORY__ <MessageName> { <ShortDebugString> }`), and a
 * visitor that picks the fields memsim uses out of one message, checking their types.
 *
 * Proto3 leaves out every field equal to its default, so an absent number is 0, an absent string
 * is empty and an absent bool is false: `step_id` 0, `allocation_id` 0 (no id), `ptr` 0 (null) are
 * all simply missing from the line. `allocated_bytes` absent means the allocator does not track
 * sizes (Tensor's FillAllocationDescription sets it only then), so it is read as unknown.
 */
import type { StringInterner } from '../string-interner.js';
import { K_IDENT, K_NUMBER, K_STRING, TextProtoError, type TextProtoParser, type TextProtoVisitor } from './text-proto.js';

export const MSG_UNKNOWN = 0;
export const MSG_STEP = 1;
export const MSG_TENSOR_ALLOCATION = 2;
export const MSG_TENSOR_DEALLOCATION = 3;
export const MSG_TENSOR_OUTPUT = 4;
export const MSG_RAW_ALLOCATION = 5;
export const MSG_RAW_DEALLOCATION = 6;

/** Message names as LogMemory prints them, indexed by the `MSG_*` codes. */
export const MESSAGE_NAMES = [
  '',
  'MemoryLogStep',
  'MemoryLogTensorAllocation',
  'MemoryLogTensorDeallocation',
  'MemoryLogTensorOutput',
  'MemoryLogRawAllocation',
  'MemoryLogRawDeallocation',
] as const;

// Fields, as bits of the masks below.
const F_STEP_ID = 0;
const F_KERNEL_NAME = 1;
const F_ALLOCATION_ID = 2;
const F_ALLOCATOR_NAME = 3;
const F_OPERATION = 4;
const F_NUM_BYTES = 5;
const F_PTR = 6;
const F_DEFERRED = 7;
const F_HANDLE = 8;
const F_REQUESTED_BYTES = 9;
const F_ALLOCATED_BYTES = 10;
const F_HAS_SINGLE_REFERENCE = 11;
const FIELD_NAMES = [
  'step_id',
  'kernel_name',
  'allocation_id',
  'allocator_name',
  'operation',
  'num_bytes',
  'ptr',
  'deferred',
  'handle',
  'requested_bytes',
  'allocated_bytes',
  'has_single_reference',
] as const;
const bit = (f: number): number => 1 << f;
const INT_FIELDS = bit(F_STEP_ID) | bit(F_ALLOCATION_ID) | bit(F_NUM_BYTES) | bit(F_PTR) | bit(F_REQUESTED_BYTES) | bit(F_ALLOCATED_BYTES);
const STRING_FIELDS = bit(F_KERNEL_NAME) | bit(F_ALLOCATOR_NAME) | bit(F_OPERATION) | bit(F_HANDLE);
/** Fields that hold byte counts or addresses: never negative. */
const UNSIGNED_FIELDS = bit(F_NUM_BYTES) | bit(F_PTR) | bit(F_REQUESTED_BYTES) | bit(F_ALLOCATED_BYTES);

/** Top-level fields of each message (log_memory.proto), by `MSG_*` code. */
const TOP_FIELDS = [
  0,
  bit(F_STEP_ID) | bit(F_HANDLE),
  bit(F_STEP_ID) | bit(F_KERNEL_NAME),
  bit(F_ALLOCATION_ID) | bit(F_ALLOCATOR_NAME),
  0,
  bit(F_STEP_ID) | bit(F_OPERATION) | bit(F_NUM_BYTES) | bit(F_PTR) | bit(F_ALLOCATION_ID) | bit(F_ALLOCATOR_NAME),
  bit(F_STEP_ID) | bit(F_OPERATION) | bit(F_ALLOCATION_ID) | bit(F_ALLOCATOR_NAME) | bit(F_DEFERRED),
];
/** Fields of `tensor.allocation_description` (allocation_description.proto). */
const DESCRIPTION_FIELDS =
  bit(F_REQUESTED_BYTES) | bit(F_ALLOCATED_BYTES) | bit(F_ALLOCATOR_NAME) | bit(F_ALLOCATION_ID) | bit(F_HAS_SINGLE_REFERENCE) | bit(F_PTR);

/**
 * One memory-log message as memsim reads it. It is the parser's visitor: reset it with
 * {@link LogMessage.begin}, run the parser over the message body, then read the fields.
 */
export class LogMessage implements TextProtoVisitor {
  type = MSG_UNKNOWN;
  stepId = 0;
  /** Tag index (kernel_name of a tensor allocation, operation of a raw one) in `tags`; 0 when empty. */
  tag = 0;
  /** Index of allocator_name in `allocators` (0 is the empty name). */
  allocator = 0;
  /** allocation_id; 0 when absent (the allocator gave none). */
  allocationId = 0;
  /** requested_bytes of a tensor, num_bytes of a raw allocation. */
  sizeBytes = 0;
  /** allocated_bytes; NaN when absent (the allocator does not track sizes). */
  allocatedBytes = NaN;
  /** ptr; 0 when absent (null), NaN when beyond 2^53 (not exact in a double). */
  ptr = 0;
  deferred = false;
  handle = '';

  /** Field name index -> field code (-1 for names memsim does not use). */
  private readonly fieldOf: Int8Array;
  /** Message name index -> `MSG_*` code. */
  private readonly typeOf: Int8Array;
  private readonly nameTensor: number;
  private readonly nameDescription: number;
  private depth = 0;
  private inTensor = false;
  private inDescription = false;
  private seenTop = 0;
  private seenDescription = 0;

  constructor(
    parser: TextProtoParser,
    private readonly tags: StringInterner,
    private readonly allocators: StringInterner,
  ) {
    const codes = FIELD_NAMES.map((n) => parser.names.internString(n));
    this.nameTensor = parser.names.internString('tensor');
    this.nameDescription = parser.names.internString('allocation_description');
    this.fieldOf = new Int8Array(Math.max(...codes) + 1).fill(-1);
    codes.forEach((code, f) => (this.fieldOf[code] = f));
    const types = MESSAGE_NAMES.map((n) => (n === '' ? 0 : parser.names.internString(n)));
    this.typeOf = new Int8Array(Math.max(...types) + 1);
    types.forEach((code, t) => (this.typeOf[code] = t));
  }

  /** The `MSG_*` code of a message name interned in the parser's names (MSG_UNKNOWN when not a known one). */
  typeOfName(name: number): number {
    return name < this.typeOf.length ? (this.typeOf[name] as number) : MSG_UNKNOWN;
  }

  /** Starts a message of type `type` (an `MSG_*` code). */
  begin(type: number): void {
    this.type = type;
    this.stepId = 0;
    this.tag = 0;
    this.allocator = 0;
    this.allocationId = 0;
    this.sizeBytes = 0;
    this.allocatedBytes = NaN;
    this.ptr = 0;
    this.deferred = false;
    this.handle = '';
    this.depth = 0;
    this.inTensor = false;
    this.inDescription = false;
    this.seenTop = 0;
    this.seenDescription = 0;
  }

  private field(name: number): number {
    return name < this.fieldOf.length ? (this.fieldOf[name] as number) : -1;
  }

  enter(name: number, p: TextProtoParser): void {
    this.depth++;
    if (this.depth === 1 && this.type === MSG_TENSOR_ALLOCATION && name === this.nameTensor) {
      this.inTensor = true;
    } else if (this.depth === 2 && this.inTensor && name === this.nameDescription) {
      this.inDescription = true;
    } else {
      const f = this.field(name);
      const mask = this.depth === 1 ? (TOP_FIELDS[this.type] as number) : this.depth === 3 && this.inDescription ? DESCRIPTION_FIELDS : 0;
      if (f >= 0 && mask & bit(f)) throw new TextProtoError(`field "${FIELD_NAMES[f]}" is ${describeKind(f)}, not a message`, p.position - 1);
    }
  }

  leave(): void {
    if (this.depth === 1) this.inTensor = false;
    if (this.depth === 2) this.inDescription = false;
    this.depth--;
  }

  scalar(name: number, p: TextProtoParser): void {
    const f = this.field(name);
    if (f < 0) return;
    if (this.depth === 0) {
      if (!((TOP_FIELDS[this.type] as number) & bit(f))) return;
      if (this.seenTop & bit(f)) throw this.twice(f, p);
      this.seenTop |= bit(f);
    } else if (this.depth === 2 && this.inDescription) {
      if (!(DESCRIPTION_FIELDS & bit(f))) return;
      if (this.seenDescription & bit(f)) throw this.twice(f, p);
      this.seenDescription |= bit(f);
    } else {
      return;
    }
    this.take(f, p);
  }

  private twice(f: number, p: TextProtoParser): TextProtoError {
    return new TextProtoError(`field "${FIELD_NAMES[f]}" is given twice (it is not repeated)`, p.valuePos);
  }

  private take(f: number, p: TextProtoParser): void {
    const b = bit(f);
    if (INT_FIELDS & b) {
      const n = this.integer(f, p);
      if (f === F_STEP_ID) this.stepId = n;
      else if (f === F_ALLOCATION_ID) this.allocationId = n;
      else if (f === F_NUM_BYTES || f === F_REQUESTED_BYTES) this.sizeBytes = n;
      else if (f === F_ALLOCATED_BYTES) this.allocatedBytes = n;
      else this.ptr = n;
    } else if (STRING_FIELDS & b) {
      if (p.kind !== K_STRING) throw this.wrongType(f, p);
      if (f === F_ALLOCATOR_NAME) this.allocator = this.allocators.intern(p.strBuf, p.strStart, p.strEnd);
      else if (f === F_HANDLE) this.handle = p.str;
      else this.tag = p.strEnd === p.strStart ? 0 : this.tags.intern(p.strBuf, p.strStart, p.strEnd);
    } else {
      const v = p.boolValue();
      if (v === undefined) throw this.wrongType(f, p);
      if (f === F_DEFERRED) this.deferred = v;
    }
  }

  private integer(f: number, p: TextProtoParser): number {
    if (p.kind !== K_NUMBER || !p.isInteger) throw this.wrongType(f, p);
    if (UNSIGNED_FIELDS & bit(f) && p.num < 0) throw new TextProtoError(`field "${FIELD_NAMES[f]}" is negative (${p.num})`, p.valuePos);
    if (!p.isExact) {
      // An address beyond 2^53 cannot be held exactly; it is kept as unknown rather than rounded.
      if (f === F_PTR) return NaN;
      throw new TextProtoError(`field "${FIELD_NAMES[f]}" is beyond 2^53, more than memsim can hold exactly`, p.valuePos);
    }
    return p.num;
  }

  private wrongType(f: number, p: TextProtoParser): TextProtoError {
    const found = p.kind === K_STRING ? 'a string' : p.kind === K_IDENT ? `"${p.names.strings[p.ident]}"` : p.isInteger ? `the integer ${p.numberText()}` : `the floating-point number ${p.numberText()}`;
    return new TextProtoError(`field "${FIELD_NAMES[f]}" expects ${describeKind(f, true)}, found ${found}`, p.valuePos);
  }
}

/** What a field holds: `an integer`, `a string`, `a bool`; `expected` words a bool as what it accepts. */
function describeKind(f: number, expected = false): string {
  const b = bit(f);
  return INT_FIELDS & b ? 'an integer' : STRING_FIELDS & b ? 'a string' : expected ? 'true or false' : 'a bool';
}
