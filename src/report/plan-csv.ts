import type { PlanResultOk } from '../planners/run.js';
import type { UsageRecords } from '../planners/types.js';

const csvField = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * The input records with an `offset` column, minimalloc's output shape: `id,lower,upper,size,offset`
 * (half-open lifetimes) for minimalloc files and traces, `size,first,last,offset` (with `id` first
 * when the input has ids) for closed-interval record files. Offsets come from the plan (objects
 * plans: their objects laid out back to back).
 */
export function renderPlanCsv(r: UsageRecords, offsets: readonly number[]): string {
  // Lines joined a few thousand at a time: a million records never hold a million small strings at once.
  const chunks: string[] = [];
  let parts: string[] = [];
  const flush = (): void => {
    chunks.push(parts.join(''));
    parts = [];
  };
  if (r.source.format === 'records-csv' || r.source.format === 'records') {
    parts.push(r.ids ? 'id,size,first,last,offset\n' : 'size,first,last,offset\n');
    for (let i = 0; i < r.count; i++) {
      const id = r.ids ? `${csvField(r.ids.get(i))},` : '';
      parts.push(`${id}${r.size[i]},${r.first[i]},${r.last[i]},${offsets[i]}\n`);
      if (parts.length === 4096) flush();
    }
  } else {
    parts.push('id,lower,upper,size,offset\n');
    for (let i = 0; i < r.count; i++) {
      const id = r.ids ? csvField(r.ids.get(i)) : String(i);
      parts.push(`${id},${r.first[i]},${(r.last[i] as number) + 1},${r.size[i]},${offsets[i]}\n`);
      if (parts.length === 4096) flush();
    }
  }
  flush();
  return chunks.join('');
}

/** The plan `--format csv` writes: the first result that is a plan (the best-ranked). */
export function csvPlanOf(results: readonly { status: string }[]): PlanResultOk | undefined {
  return results.find((x) => x.status === 'ok') as PlanResultOk | undefined;
}
