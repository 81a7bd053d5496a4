import { type Command, Option } from 'commander';
import { z } from 'zod';
import { type AttributionOptions, DEFAULT_STACK_DEPTH, DEFAULT_TOP, GROUP_BY } from '../attribution/index.js';
import { intArg } from './options.js';

/** The zod fields of the attribution flags. */
export const attributionFields = {
  groupBy: z.enum(GROUP_BY as [string, ...string[]]).optional(),
  top: intArg.refine((n) => n >= 1 && n <= 1000, 'between 1 and 1000').optional(),
  stackDepth: intArg.refine((n) => n >= 1 && n <= 100, 'between 1 and 100').optional(),
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
    ...(o.groupBy !== undefined ? { groupBy: o.groupBy as AttributionOptions['groupBy'] & string } : {}),
    ...(o.top !== undefined ? { top: o.top } : {}),
    ...(o.stackDepth !== undefined ? { stackDepth: o.stackDepth } : {}),
  };
}
