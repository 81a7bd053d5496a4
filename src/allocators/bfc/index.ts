/**
 * The `bfc` allocator: TensorFlow's BFC allocator as `GPUBFCAllocator` runs it (TF 2.12–2.14),
 * with its GPU defaults. See ../shared/spec/bfc.md.
 */
import { formatBytes } from '../../util/bytes.js';
import { opt, optionSchema, OptionValueError, type OptionSpec } from '../options.js';
import { defineAllocator } from '../types.js';
import { BFC_DEVICE_BASE, BfcAllocator } from './allocator.js';
import { bfcWhatIf } from './what-if.js';

export { BfcAllocator, BFC_DEVICE_BASE, type BfcSettings } from './allocator.js';
export { checkBfc } from './check.js';
export { humanReadableNumBytes } from './format.js';
export { tensorflowSetting } from './what-if.js';

const GiB = 1024 ** 3;
/** The memory limit assumed when the run has no capacity: an 80 GB GPU (A100/H100 80GB). */
export const BFC_DEFAULT_LIMIT_BYTES = 80 * GiB;

/** A byte option that may be absent (`none`). */
function optionalBytes(description: string): OptionSpec<number | null> {
  const bytes = opt.bytes(0, description, { min: 0 });
  const schema = optionSchema((v): number | null => {
    if (v === null || v === 'none') return null;
    const r = bytes.schema.safeParse(v);
    if (!r.success) throw new OptionValueError(r.error.issues.map((i) => i.message).join('; '));
    return r.data;
  });
  return { kind: 'bytes', default: null, description, schema };
}

/**
 * The memory limit when the run gives no capacity: TensorFlow always has a finite one, so assume an
 * 80 GiB device, or the smallest power of two at least twice the trace's peak of live bytes when that
 * is larger (so that a replay without --capacity shows the allocator, not an invented OOM).
 */
export function assumedLimitBytes(peakLiveBytes: number): number {
  const need = 2 * peakLiveBytes;
  return need > BFC_DEFAULT_LIMIT_BYTES ? 2 ** Math.ceil(Math.log2(need)) : BFC_DEFAULT_LIMIT_BYTES;
}

export const bfc = defineAllocator({
  name: 'bfc',
  relativeCost: 1.5,
  summary: "TensorFlow's best-fit-with-coalescing allocator (GPU_0_bfc, TF 2.12–2.14): bins, regions, exact OOM dump",
  options: {
    allow_growth: opt.boolean(false, 'grow regions on demand from 2 MiB (true) or reserve the whole memory limit at the first request'),
    garbage_collection: opt.boolean(true, 'return empty regions to the device and retry before declaring an OOM'),
    fragmentation_fraction: opt.number(0, 'when > 0, split chunks whose leftover is at least this fraction of the limit (else 128 MiB)', { min: 0, max: 1 }),
    coalesce_regions: opt.boolean(false, 'the device hands out contiguous regions that merge (a virtual-memory sub-allocator)'),
    memory_limit: optionalBytes("BFC's memory limit (TensorFlow's memory_limit); none = the capacity, or 80 GiB when unlimited"),
    name: opt.string('GPU_0_bfc', 'allocator name in the OOM text'),
  },
  whatIf: bfcWhatIf,
  recordedAs: ['tensorflow-bfc'],
  // Without a memory limit or a capacity, the limit is taken from the whole trace's peak.
  streams: (o, capacityBytes) => o.memory_limit !== null || Number.isFinite(capacityBytes),
  create(o, ctx) {
    const capacity = ctx.capacityBytes;
    const notes: string[] = [];
    let limit: number;
    if (o.memory_limit !== null) {
      limit = o.memory_limit;
    } else if (Number.isFinite(capacity)) {
      limit = capacity;
    } else {
      limit = assumedLimitBytes(ctx.trace.summary.peakLiveBytes);
      notes.push(
        `no capacity given: bfc assumed a memory limit of ${formatBytes(limit)} (TensorFlow always has one; ` +
          `pass --capacity, or name the allocator 'bfc[memory_limit=…]', for your device)` +
          (o.allow_growth ? '' : "; with allow_growth=false it reserves the whole limit at the first request, so peak reserved is that limit — the allocator 'bfc[allow_growth=true]' shows regions growing on demand"),
      );
    }
    const { trace } = ctx;
    const allocator = new BfcAllocator({
      memoryLimitBytes: limit,
      allowGrowth: o.allow_growth,
      garbageCollection: o.garbage_collection,
      fragmentationFraction: o.fragmentation_fraction,
      coalesceRegions: o.coalesce_regions,
      deviceCapacityBytes: capacity,
      deviceBaseAddress: BFC_DEVICE_BASE,
      name: o.name,
      // The trace's columns are read when an OOM asks (a trace read while replayed grows until then).
      opName: (event) => {
        const t = trace.tag ? (trace.tag[event] as number) : 0;
        return t > 0 ? (trace.tags[t] as string) : null;
      },
    });
    allocator.staticNotes = notes;
    allocator.traceNotes = () => (trace.stream ? ['bfc serves every stream from one pool, as TensorFlow does for a GPU; stream ids are ignored'] : []);
    return allocator;
  },
});
