/**
 * The report of `memsim tune` from its parts: one part for a whole run, or the parts of every shard
 * (`--merge`). The same parts give the same bytes, however the work was split.
 */
import { UsageError } from '../errors.js';
import { VERSION } from '../version.js';
import { rankRows, recommend, shortfall } from './tune-rank.js';
import type { TunePart, TuneReport, TuneRow } from './tune-types.js';

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isBool = (x: unknown): boolean => typeof x === 'boolean';
const isText = (x: unknown): boolean => typeof x === 'string';

/** The fields of a row that the report reads, and their types. */
const ROW_FIELDS: [string, (x: unknown) => boolean][] = [
  ['name', isText], ['allocator', isText], ['options', isObj], ['current', isBool], ['reference', isBool], ['fits', isBool],
  ['minCapacityBytes', (x) => x === null || isNum(x)], ['peakReservedBytes', isNum], ['oomCount', isNum],
  ['deviceAllocCalls', isNum], ['deviceFreeCalls', isNum], ['setting', (x) => x === null || isText(x)],
  ['changes', Array.isArray], ['replays', isNum],
];

/** Checks that parsed JSON is a `memsim.tune-part/1` (the output of `tune --shard`). */
export function parseTunePart(json: unknown, path: string): TunePart {
  const bad = (why: string): never => {
    throw new UsageError(`${path}: not a memsim.tune-part/1 file (written by memsim tune --shard): ${why}`);
  };
  if (!isObj(json)) return bad('expected a JSON object');
  if (json['schema'] !== 'memsim.tune-part/1') return bad(`schema is ${JSON.stringify(json['schema'] ?? null)}`);
  const shard = json['shard'];
  if (!isObj(shard) || !Number.isSafeInteger(shard['index']) || !Number.isSafeInteger(shard['count'])) return bad('no shard index and count');
  if (!Array.isArray(json['rows'])) return bad('no "rows" array');
  for (const [k, r] of (json['rows'] as unknown[]).entries()) {
    if (!isObj(r)) return bad(`rows[${k}] is not an object`);
    const wrong = ROW_FIELDS.find(([key, ok]) => !ok(r[key]));
    if (wrong) return bad(`rows[${k}].${wrong[0]} is missing or of the wrong type`);
  }
  const settings = json['settings'];
  if (!isObj(settings) || !isObj(json['trace']) || !isObj(json['lowerBound']) || !isObj(json['tool'])) return bad('lacks settings, trace, lowerBound or tool');
  if (!Array.isArray(settings['allocators']) || !Array.isArray(settings['spaces']) || !isNum(settings['capacityStepBytes'])) return bad('settings lack allocators, spaces or capacityStepBytes');
  if (typeof json['tool']['version'] !== 'string' || !isNum(json['lowerBound']['peakLiveBytes'])) return bad('lacks tool.version or lowerBound.peakLiveBytes');
  return json as unknown as TunePart;
}

/** What must be equal in every part of one tuning. */
function sharedOf(p: TunePart): string {
  return JSON.stringify({ tool: p.tool, count: p.shard.count, trace: p.trace, lowerBound: p.lowerBound, settings: p.settings, notes: p.notes });
}

/**
 * Joins the parts of one tuning: every shard exactly once, all made by the same memsim from the same
 * trace and options. Rows are the union of theirs.
 */
export function mergeTuneParts(parts: readonly { part: TunePart; path: string }[]): TunePart {
  const first = parts[0];
  if (!first) throw new UsageError('--merge: no part given');
  const count = first.part.shard.count;
  const seen = new Map<number, string>();
  for (const { part, path } of parts) {
    if (part.tool.version !== VERSION) throw new UsageError(`${path}: written by memsim ${part.tool.version}; this is ${VERSION} (merge parts with the version that made them)`);
    if (sharedOf(part) !== sharedOf(first.part)) {
      throw new UsageError(`${path}: not a part of the same tuning as ${first.path} (the trace, the options or the number of shards differ)`);
    }
    const i = part.shard.index;
    const twice = seen.get(i);
    if (twice !== undefined) throw new UsageError(`${path}: shard ${i}/${count} is also ${twice}`);
    seen.set(i, path);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`--merge: shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} missing`);
  const rows: TuneRow[] = [];
  const names = new Set<string>();
  for (const { part, path } of parts) {
    for (const r of part.rows) {
      if (names.has(r.name)) throw new UsageError(`${path}: ${r.name} is in two parts`);
      names.add(r.name);
      rows.push(r);
    }
  }
  return { ...first.part, shard: { index: 1, count: 1 }, rows };
}

/** The report: rows ranked, the recommendation, and when nothing fits, how short it falls. */
export function assembleTuneReport(part: TunePart): TuneReport {
  const s = part.settings;
  const rows = rankRows(part.rows, s.allocators);
  const step = s.capacityStepBytes;
  const spaces = s.spaces.map((sp) => {
    const own = rows.filter((r) => r.allocator === sp.allocator);
    return { ...sp, tried: own.length, replays: own.reduce((n, r) => n + r.replays, 0) };
  });
  return {
    schema: 'memsim.tune/1',
    tool: part.tool,
    recommendation: recommend(rows),
    shortfall: shortfall(rows, s.capacityBytes, part.lowerBound.peakLiveBytes),
    trace: part.trace,
    capacityBytes: s.capacityBytes,
    capacityStepBytes: step,
    lowerBound: { ...part.lowerBound, minCapacityBytes: Math.ceil(part.lowerBound.peakLiveBytes / step) * step },
    spaces,
    rows,
    replays: rows.reduce((n, r) => n + r.replays, 0),
    notes: part.notes,
  };
}
