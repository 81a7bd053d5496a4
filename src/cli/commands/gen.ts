import { Command, Option } from 'commander';
import { z } from 'zod';
import { getWorkload, workloads } from '../../gen/index.js';
import { TraceWriter } from '../../trace/write.js';
import { bytesArg, intArg, parseOptions } from '../options.js';
import { UsageError } from '../../errors.js';
/** The largest seed: the generator keeps 32 bits of it (gen/rng.ts). */
const MAX_SEED = 2 ** 32 - 1;

const schema = z.object({
  seed: intArg.default(1),
  steps: intArg.optional(),
  events: intArg.optional(),
  layers: intArg.optional(),
  seqLen: intArg.optional(),
  format: z.enum(['json', 'jsonl', 'csv']).default('json'),
  output: z.string().optional(),
  capacity: bytesArg.optional(),
});

export function genCommand(): Command {
  return new Command('gen')
    .description('write a deterministic synthetic trace that looks like a real DNN workload')
    .argument('<workload>', workloads.map((w) => `${w.name} (${w.description})`).join('; '))
    .option('--seed <n>', 'random seed, 0 to 4294967295 (same seed, same trace)', '1')
    .option('--steps <n>', 'number of steps (iterations or requests)')
    .option('--events <n>', 'generate about this many events (instead of --steps)')
    .option('--layers <n>', 'model depth')
    .option('--seq-len <n>', 'training: the same sequence length every step (static shapes) instead of one drawn per step from 512–1024')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json', 'jsonl', 'csv']).default('json'))
    .option('--output <file>', 'write to a file instead of stdout')
    .option('-c, --capacity <bytes>', 'record a device capacity in the trace meta (the default --capacity of replays)')
    .addHelpText(
      'after',
      `
Examples:
  $ memsim gen training --steps 20 --output training.json
  $ memsim gen inference --seed 7 --format csv --output inference.csv
  $ memsim gen fragmentation --steps 30 --format jsonl > frag.jsonl
  $ memsim gen training --events 1000000 --format csv --output big.csv
  $ memsim gen training --steps 200 --seq-len 1024 --output static.json`,
    )
    .action((name: string, raw: Record<string, unknown>) => {
      const o = parseOptions(schema, raw);
      const w = getWorkload(name);
      if (o.steps !== undefined && o.events !== undefined) throw new UsageError('give --steps or --events, not both');
      if (o.seqLen !== undefined && w.name !== 'training') throw new UsageError(`--seq-len is an option of the training workload, not of ${w.name}`);
      if (o.seqLen !== undefined && o.seqLen < 1) throw new UsageError('--seq-len must be at least 1');
      if (o.layers !== undefined && w.name === 'fragmentation') throw new UsageError(`--layers is an option of the training and inference workloads, not of ${w.name}`);
      if (o.layers !== undefined && o.layers < 1) throw new UsageError('--layers must be at least 1');
      if (o.seed > MAX_SEED) throw new UsageError(`--seed must be at most ${MAX_SEED} (seeds are 32-bit: a larger one would repeat a smaller one's trace)`);
      const shape = {
        ...(o.layers !== undefined ? { layers: o.layers } : {}),
        ...(o.seqLen !== undefined ? { seqLen: o.seqLen } : {}),
      };
      const perStep = w.eventsPerStep(shape);
      const steps = o.steps ?? (o.events !== undefined ? Math.max(1, Math.ceil(o.events / perStep)) : w.defaultSteps);
      const meta: Record<string, unknown> = {
        name: `${w.name}-seed${o.seed}-steps${steps}`,
        source: `memsim gen ${w.name} --seed ${o.seed} --steps ${steps}${o.layers !== undefined ? ` --layers ${o.layers}` : ''}${o.seqLen !== undefined ? ` --seq-len ${o.seqLen}` : ''}${o.capacity !== undefined ? ` --capacity ${o.capacity}` : ''}`,
      };
      if (o.capacity !== undefined) meta['capacityBytes'] = o.capacity;
      const writer = new TraceWriter(o.output ?? '-', o.format, meta);
      try {
        w.generate(writer, { seed: o.seed, steps, ...shape });
      } catch (e) {
        writer.abandon();
        throw e;
      }
      writer.end();
    });
}
