import type { Command } from 'commander';
import { type ReadOptions, traceReaders } from '../trace/readers.js';
import { flag } from './flags.js';

/** The flag checks of the options every command that reads a trace takes (zod's are in trace-input.ts). */
export const traceInputFlags = {
  lenient: flag.boolean(false),
  inputFormat: flag.string(),
  device: flag.digits('a device number'),
  allocatorName: flag.name('an allocator name'),
};

/** The parsed trace-input options. */
export interface TraceInputOptions {
  lenient: boolean;
  inputFormat?: string | undefined;
  device?: number | undefined;
  allocatorName?: string | undefined;
}

/**
 * Adds the trace-input flags (--lenient, --input-format, --device, --allocator-name) to a command.
 * @param extraFormats input formats the command reads besides traces (e.g. usage records)
 */
export function addTraceInputOptions(cmd: Command, extraFormats: readonly string[] = []): Command {
  const formats = [...extraFormats, ...traceReaders.map((r) => r.format)].join(', ');
  return cmd
    .option('--lenient', 'skip and count frees of non-live ids and allocs of live ids instead of failing')
    .option('--input-format <format>', `force the input format instead of detecting it: ${formats}`)
    .option('--device <n>', 'device to import from multi-device inputs (PyTorch snapshots)')
    .option('--allocator-name <name>', 'allocator to import from logs that hold several (TensorFlow logs)');
}

/** The reader options those flags stand for. */
export function readOptions(o: TraceInputOptions, extra: ReadOptions = {}): ReadOptions {
  return {
    ...extra,
    lenient: o.lenient,
    ...(o.inputFormat ? { format: o.inputFormat } : {}),
    ...(o.device !== undefined ? { device: o.device } : {}),
    ...(o.allocatorName !== undefined ? { allocatorName: o.allocatorName } : {}),
  };
}
