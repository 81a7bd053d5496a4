/**
 * A hint to glibc's malloc, given once at start-up (bin/memsim.js) to a command that reads an input
 * large enough for V8 to compile memsim's loops: a block of just under 32 MiB, mapped and never
 * touched, which the first collection frees. Freeing a block that malloc had mapped on its own raises
 * its thresholds, to map apart and to give freed memory back to the system, to that block's size (32
 * MiB at most). Without it, every compile of V8's optimizing compiler and every thread gives back the
 * memory it freed and takes it again, fresh, for the next: some 2,000 page faults in a replay of
 * 10^6 events (17.2k -> 15.3k; 0.435 -> 0.400 s median on a 2-core VM where a fault costs ~15 µs),
 * 500 in one of a 90 KB trace, for some 10 MB more peak memory. A large block also makes V8 collect
 * at once ("external memory pressure", 2-3 ms): a command on a small input, or none, goes without.
 * Elsewhere than glibc the block is 32 MiB of address space, no memory.
 */
import { statSync } from 'node:fs';

/** An input of at least this many bytes gets the hint (standard input, `-`, always). */
export const MALLOC_HINT_MIN_BYTES = 64 << 10;

/** The block's size: under the 32 MiB that malloc takes as a threshold at most, less its header. */
const HINT_BYTES = (32 << 20) - (64 << 10);

/**
 * True when the command line `argv` (as `process.argv`: node, script, command, …) names an input
 * worth the hint: standard input, or an existing file of at least {@link MALLOC_HINT_MIN_BYTES}.
 */
export function namesLargeInput(argv: readonly string[], sizeOf: (path: string) => number = (p) => statSync(p).size): boolean {
  for (let k = 3; k < argv.length; k++) {
    const arg = argv[k] as string;
    if (arg === '-') return true;
    if (arg.startsWith('-')) continue;
    try {
      if (sizeOf(arg) >= MALLOC_HINT_MIN_BYTES) return true;
    } catch {
      // not a file: a command, a value, or a path the command will report
    }
  }
  return false;
}

/** Gives the hint when `argv` names a large input; returns whether it did. Never throws. */
export function mallocHint(argv: readonly string[]): boolean {
  if (!namesLargeInput(argv)) return false;
  try {
    // Its length is read so that no bundler takes the block for dead code.
    return new ArrayBuffer(HINT_BYTES).byteLength === HINT_BYTES;
  } catch {
    return false; // no room for it (a limit on address space): no hint
  }
}
