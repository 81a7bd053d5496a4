/**
 * A minimal WebAssembly encoder for exported functions over an imported memory (`env.mem`), each
 * written as a list of instructions with named locals: enough for the placement's kernels
 * (merge-kernel.ts, window-kernel.ts), which are built here from their source when first used, with
 * no tool chain.
 */

/** The parts of WebAssembly's JavaScript API used here (Node has them; the ES library types do not). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Value types of parameters, locals and the result. */
export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;

const OPCODES: Readonly<Record<string, number>> = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  br: 0x0c,
  br_if: 0x0d,
  end: 0x0b,
  call: 0x10,
  return: 0x0f,
  drop: 0x1a,
  select: 0x1b,
  'local.get': 0x20,
  'local.set': 0x21,
  'local.tee': 0x22,
  'i32.load': 0x28,
  'i64.load': 0x29,
  'f64.load': 0x2b,
  'i32.store': 0x36,
  'i64.store': 0x37,
  'f64.store': 0x39,
  'i32.const': 0x41,
  'f64.const': 0x44,
  'i32.eqz': 0x45,
  'i32.ne': 0x47,
  'i32.lt_s': 0x48,
  'i32.lt_u': 0x49,
  'i32.gt_s': 0x4a,
  'i32.le_s': 0x4c,
  'i32.ge_s': 0x4e,
  'i64.lt_s': 0x53,
  'i64.gt_s': 0x55,
  'f64.lt': 0x63,
  'f64.gt': 0x64,
  'f64.eq': 0x61,
  'f64.ge': 0x66,
  'i32.add': 0x6a,
  'i32.sub': 0x6b,
  'i32.mul': 0x6c,
  'i32.and': 0x71,
  'i32.or': 0x72,
  'i32.xor': 0x73,
  'i32.shl': 0x74,
  'i32.shr_s': 0x75,
  'i32.shr_u': 0x76,
  'f64.ceil': 0x9b,
  'f64.add': 0xa0,
  'f64.sub': 0xa1,
  'f64.mul': 0xa2,
  'f64.div': 0xa3,
  'f64.min': 0xa4,
  'f64.max': 0xa5,
  'f64.convert_i32_u': 0xb8,
  'i64.reinterpret_f64': 0xbd,
  'f64.reinterpret_i64': 0xbf,
  // Prefixed (0xfc): memory.copy, of the imported memory onto itself.
  'memory.copy': 0xfc,
};

const unsignedLeb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};

const signedLeb = (n: number): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};

const vector = (items: number[][]): number[] => [...unsignedLeb(items.length), ...items.flat()];
const name = (s: string): number[] => vector([...s].map((c) => [c.charCodeAt(0)]));
const section = (id: number, bytes: number[]): number[] => [id, ...unsignedLeb(bytes.length), ...bytes];

/** A function: parameters and locals as [name, type], its result type, and its instructions ("op immediate"). */
export interface WasmFunction {
  exportName: string;
  params: readonly (readonly [string, number])[];
  locals: readonly (readonly [string, number])[];
  result: number;
  code: readonly string[];
}

/** The bytes of a module that imports a memory as env.mem and exports the functions `fs`. */
export function encodeModule(fs: readonly WasmFunction[]): Uint8Array {
  const types = fs.map((f) => [0x60, ...vector(f.params.map(([, t]) => [t])), ...vector([[f.result]])]);
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, vector(types)),
    ...section(2, vector([[...name('env'), ...name('mem'), 0x02, 0x00, 0x01]])),
    ...section(3, vector(fs.map((_, k) => unsignedLeb(k)))),
    ...section(7, vector(fs.map((f, k) => [...name(f.exportName), 0x00, ...unsignedLeb(k)]))),
    ...section(10, vector(fs.map(encodeBody))),
  ]);
}

/** A function's body: its locals and its instructions, with their length first. */
function encodeBody(f: WasmFunction): number[] {
  const index = new Map<string, number>();
  [...f.params, ...f.locals].forEach(([n], k) => index.set(n, k));
  const body: number[] = [];
  for (const instruction of f.code) {
    const [op = '', arg = ''] = instruction.split(' ');
    const opcode = OPCODES[op];
    if (opcode === undefined) throw new Error(`wasm: unknown instruction ${op}`);
    body.push(opcode);
    if (op.startsWith('local.')) {
      const k = index.get(arg);
      if (k === undefined) throw new Error(`wasm: unknown local ${arg}`);
      body.push(...unsignedLeb(k));
    } else if (op === 'i32.const') {
      body.push(...signedLeb(Number(arg)));
    } else if (op === 'f64.const') {
      body.push(...new Uint8Array(new Float64Array([Number(arg)]).buffer));
    } else if (op.endsWith('.load') || op.endsWith('.store')) {
      // Alignment hint (log2 of the access width), then the constant offset.
      body.push(op.startsWith('i32') ? 2 : 3, ...unsignedLeb(Number(arg || 0)));
    } else if (op === 'block' || op === 'loop' || op === 'if') {
      body.push(0x40);
    } else if (op === 'br' || op === 'br_if' || op === 'call') {
      // A branch's depth, or the index of the function called (its place in the module's list).
      body.push(...unsignedLeb(Number(arg)));
    } else if (op === 'memory.copy') {
      body.push(10, 0, 0);
    }
  }
  body.push(0x0b);
  const fn = [...vector(f.locals.map(([, t]) => [1, t])), ...body];
  return [...unsignedLeb(fn.length), ...fn];
}
