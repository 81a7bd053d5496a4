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

/** C++ frames of the allocator and of tensor creation inside ATen/c10. */
const ALLOCATOR_CPP = /CUDACachingAllocator|^c10::|^at::|^torch::|^THP|^std::/;

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

/** What one frame is worth as a tag: a user Python frame, a fallback C++ frame, or nothing. */
export function classify(f: Frame): number {
  if (f.filename.endsWith('.py')) return TORCH_PYTHON.test(f.filename) ? USELESS : PYTHON;
  if (viewerShows(f) && !ALLOCATOR_CPP.test(f.name) && !f.name.startsWith('_Py') && !f.name.startsWith('Py')) return FALLBACK;
  return USELESS;
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
      c = f ? { kind: classify(f), text: `${f.filename}:${f.line}:${f.name}` } : { kind: USELESS, text: '' };
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
