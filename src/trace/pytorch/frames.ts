import { field, isDict, type PickleValue } from './pickle-value.js';

/**
 * Frames the official viewer hides (MemoryViz.js frameFilter): the stack capture itself, process
 * start-up and the CPython interpreter.
 */
const VIEWER_OMITTED_NAMES = ['unwind::unwind', 'CapturedTraceback::gather', 'gather_with_cpp', '_start', '__libc_start_main', 'PyEval_', 'PyObject_', 'PyFunction_'];
const VIEWER_OMITTED_FILES = ['core/boxing', '/Register', '/Redispatch', 'pythonrun.c', 'Modules/main.c', 'Objects/call.c', 'Objects/methodobject.c', 'pycore_ceval.h', 'ceval.c', 'cpython/abstract.h'];

/**
 * Python files that belong to torch itself or that torch generated (the allocator is reached through
 * them, they do not say which user code allocated): the installed package, a source checkout's
 * package directories, and TorchInductor's generated kernels.
 */
const TORCH_PYTHON = /[\\/](?:site|dist)-packages[\\/]torch[\\/]|[\\/]torch[\\/](?:nn|_dynamo|_inductor|_functorch|_higher_order_ops|_prims|_refs|_decomp|_subclasses|autograd|amp|cuda|distributed|fx|jit|optim|utils|_tensor\.py|_ops\.py|functional\.py|overrides\.py|_compile\.py)|[\\/]torchinductor_/;

/** C++ frames of the allocator and of tensor creation inside ATen/c10 (tested on {@link cppFunctionName}). */
const ALLOCATOR_CPP = /CUDACachingAllocator|^c10::|^at::|^torch::|^THP|^std::/;

/**
 * C++ frames of autograd that say whose gradient is being made, where a backward pass (run on
 * autograd's own threads, with no Python frame) allocates: the generated backward nodes and formulas
 * (`NllLossBackward0_apply_functional`, `details::mm_mat2_backward`), gradient accumulation, and the
 * engine's check of a node's gradients (`validate_outputs`, which casts and reduces a gradient to its
 * input's type and shape). Kept although they are torch's.
 */
const AUTOGRAD_CPP = /^torch::autograd::(?:generated::|AccumulateGrad|InputMetadata::|validate_outputs)/;

/** Thread and process start-up frames of the C library: the outermost frames of every thread. */
const THREAD_START = /^(?:__clone3?|clone3?|start_thread|pthread_\w+|__libc_\w+|_start)$/;

/** One frame of a stack as snapshots hold it. */
export interface Frame {
  name: string;
  filename: string;
  line: number;
}

/** A frame dict as a {@link Frame}, or undefined when it is not one. */
export function asFrame(v: PickleValue): Frame | undefined {
  if (!isDict(v)) return undefined;
  const name = field(v, 'name');
  const filename = field(v, 'filename');
  const line = field(v, 'line');
  if (typeof name !== 'string' || typeof filename !== 'string') return undefined;
  return { name, filename, line: typeof line === 'number' ? line : 0 };
}

function viewerShows(f: Frame): boolean {
  return !VIEWER_OMITTED_NAMES.some((s) => f.name.includes(s)) && !VIEWER_OMITTED_FILES.some((s) => f.filename.includes(s));
}

/** Frame kinds of {@link classify}. */
export const USELESS = 0;
export const PYTHON = 1;
export const FALLBACK = 2;

/**
 * A demangled C++ name as a reader names the function: without its return type, parameter list and
 * qualifiers (`at::Tensor ns::f<T>(int, long) const` is `ns::f<T>`); overloads share the name. A name
 * with no parameter list (a C symbol, a Python function) is kept as it is.
 */
export function cppFunctionName(name: string): string {
  const close = name.lastIndexOf(')');
  if (close < 0) return name;
  let open = -1;
  for (let i = close, depth = 0; i >= 0; i--) {
    const c = name.charCodeAt(i);
    if (c === 0x29) depth++;
    else if (c === 0x28 && --depth === 0) {
      open = i;
      break;
    }
  }
  if (open <= 0) return name;
  // The qualified name ends at the parameter list and starts after the last space outside template
  // arguments and parentheses (`(anonymous namespace)`): what comes before is the return type.
  let start = 0;
  for (let i = open - 1, angle = 0, paren = 0; i >= 0; i--) {
    const c = name.charCodeAt(i);
    if (c === 0x3e) angle++;
    else if (c === 0x3c) angle--;
    else if (c === 0x29) paren++;
    else if (c === 0x28) paren--;
    else if (c === 0x20 && angle <= 0 && paren === 0) {
      start = i + 1;
      break;
    }
  }
  return name.slice(start, open);
}

/** A frame as `file:line:name` (the viewer's notation), a C++ name as {@link cppFunctionName} gives it. */
export function frameText(f: Frame): string {
  return `${f.filename}:${f.line}:${f.filename.endsWith('.py') ? f.name : cppFunctionName(f.name)}`;
}

/** What one frame is worth as a tag: a user Python frame, a fallback C++ frame, or nothing. */
export function classify(f: Frame): number {
  if (f.filename.endsWith('.py')) return TORCH_PYTHON.test(f.filename) ? USELESS : PYTHON;
  const name = cppFunctionName(f.name);
  if (AUTOGRAD_CPP.test(name)) return FALLBACK;
  if (!viewerShows(f) || ALLOCATOR_CPP.test(name) || THREAD_START.test(name) || name.startsWith('_Py') || name.startsWith('Py')) return USELESS;
  return FALLBACK;
}

/**
 * Picks the innermost useful frame of a stack, as `file:line:name` (the viewer's notation): the
 * innermost Python frame outside torch, else the innermost frame that the viewer shows and that is
 * not the allocator or ATen/c10 machinery. Lists and frames are cached by identity: snapshots share
 * them among many entries (memoized in the pickle), so each distinct one is read once.
 */
export class FrameTags {
  private readonly lists = new Map<object, string | undefined>();
  private readonly frames = new Map<object, { kind: number; text: string }>();

  private frame(v: PickleValue): { kind: number; text: string } {
    if (!isDict(v)) return { kind: USELESS, text: '' };
    let c = this.frames.get(v);
    if (!c) {
      const f = asFrame(v);
      c = f ? { kind: classify(f), text: frameText(f) } : { kind: USELESS, text: '' };
      this.frames.set(v, c);
    }
    return c;
  }

  /** The tag of a frames list, or undefined when it is empty or has no useful frame. */
  tag(frames: PickleValue | undefined): string | undefined {
    if (!Array.isArray(frames) || frames.length === 0) return undefined;
    if (this.lists.has(frames)) return this.lists.get(frames);
    let fallback: string | undefined;
    let t: string | undefined;
    for (const v of frames) {
      const c = this.frame(v);
      if (c.kind === PYTHON) {
        t = c.text;
        break;
      }
      if (c.kind === FALLBACK && fallback === undefined) fallback = c.text;
    }
    t ??= fallback;
    this.lists.set(frames, t);
    return t;
  }
}

/** The tag of one stack (see {@link FrameTags}). */
export function usefulFrame(frames: PickleValue | undefined): string | undefined {
  return new FrameTags().tag(frames);
}
