import { type Command, Option } from 'commander';
import { type AttributionOptions, DEFAULT_STACK_DEPTH, DEFAULT_TOP, GROUP_BY, type GroupBy } from '../attribution/types.js';
import { flag } from './flags.js';

/** The flag checks of --group-by, --top and --stack-depth (zod's are in attribution-input.ts). */
export const attributionFlags = {
  groupBy: flag.maybeOneOf(GROUP_BY as unknown as readonly [GroupBy, ...GroupBy[]]),
  top: flag.between(1, 1000),
  stackDepth: flag.between(1, 100),
};

/** The parsed attribution flags. */
export interface AttributionFlags {
  groupBy?: string | undefined;
  top?: number | undefined;
  stackDepth?: number | undefined;
}

/** Adds --group-by, --top and --stack-depth to a command. */
export function addAttributionOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--group-by <key>', 'who holds the memory at the peaks and OOMs, grouped by: frame (innermost user frame), stack, file, or tag (default: frame when the trace has stacks, else tag)').choices([...GROUP_BY]),
    )
    .option('--top <n>', `groups listed before "everything else" (default ${DEFAULT_TOP})`)
    .option('--stack-depth <n>', `user frames in a --group-by stack key (default ${DEFAULT_STACK_DEPTH})`);
}

/** The attribution options those flags stand for. */
export function attributionOptions(o: AttributionFlags): AttributionOptions {
  return {
    ...(o.groupBy !== undefined ? { groupBy: o.groupBy as GroupBy } : {}),
    ...(o.top !== undefined ? { top: o.top } : {}),
    ...(o.stackDepth !== undefined ? { stackDepth: o.stackDepth } : {}),
  };
}
