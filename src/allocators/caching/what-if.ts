/**
 * What `memsim tune` tries with the caching allocator: the PYTORCH_CUDA_ALLOC_CONF keys people tune
 * when memory runs out, and the setting written back in PyTorch's own syntax.
 */
import type { WhatIfKey, WhatIfSpace } from '../types.js';
import { parseAllocConf } from './config.js';
import { kLargeBuffer } from './sizes.js';

const MB = 1048576;

/**
 * Divisions per MiB interval in the shortest text PyTorch parses back to the same 16 values: one
 * value when all agree, else a list where the first entry also covers the intervals below it and
 * `>` covers the intervals after the last one named (`[256:1,512:2,1024:4,>:8]`).
 */
export function compactRoundup(divs: readonly number[]): string {
  if (divs.every((d) => d === divs[0])) return divs[0] === 0 ? '' : String(divs[0]);
  const runs: { start: number; end: number; value: number }[] = [];
  divs.forEach((d, k) => {
    const last = runs[runs.length - 1];
    if (last && last.value === d) last.end = k;
    else runs.push({ start: k, end: k, value: d });
  });
  const parts: string[] = [];
  runs.forEach((r, k) => {
    if (k === 0) parts.push(`${2 ** r.end}:${r.value}`);
    else if (k === runs.length - 1) parts.push(`>:${r.value}`);
    else for (let i = r.start; i <= r.end; i++) parts.push(`${2 ** i}:${r.value}`);
  });
  return `[${parts.join(',')}]`;
}

/** `PYTORCH_CUDA_ALLOC_CONF` for these effective options, keys in the order people write them. */
export function allocConfLine(o: Record<string, unknown>): string {
  const parts: string[] = [];
  if (o['expandable_segments'] === true) parts.push('expandable_segments:True');
  if (typeof o['max_split_size_mb'] === 'number') parts.push(`max_split_size_mb:${o['max_split_size_mb']}`);
  const rounding = o['max_non_split_rounding_mb'];
  if (typeof rounding === 'number' && rounding * MB !== kLargeBuffer) parts.push(`max_non_split_rounding_mb:${rounding}`);
  const roundup = typeof o['roundup_power2_divisions'] === 'string' ? o['roundup_power2_divisions'] : '';
  if (roundup !== '') {
    const divs = parseAllocConf(`roundup_power2_divisions:${roundup}`).roundupPower2Divisions ?? [];
    parts.push(`roundup_power2_divisions:${compactRoundup(divs)}`);
  }
  const gc = o['garbage_collection_threshold'];
  if (typeof gc === 'number' && gc > 0) parts.push(`garbage_collection_threshold:${gc}`);
  if (typeof o['per_process_memory_fraction'] === 'number') parts.push(`per_process_memory_fraction:${o['per_process_memory_fraction']}`);
  // A `conf` option goes first as written: the individual options, which beat it, come after it,
  // and PyTorch keeps the last value of a key.
  const conf = typeof o['conf'] === 'string' ? o['conf'].trim() : '';
  if (conf !== '') parts.unshift(conf);
  return parts.length === 0 ? 'unset PYTORCH_CUDA_ALLOC_CONF' : `PYTORCH_CUDA_ALLOC_CONF=${parts.join(',')}`;
}

/** The caching allocator's what-if space (the grid; the GC threshold only under a memory fraction). */
export const cachingWhatIf: WhatIfSpace = {
  summary:
    'expandable_segments {false, true} × max_split_size_mb {none, 64, 128, 256, 512, 1024} × roundup_power2_divisions {off, 2, 4, 8, [256:1,512:2,1024:4,>:8]}, × garbage_collection_threshold {0, 0.6, 0.8} under a memory fraction; written as PYTORCH_CUDA_ALLOC_CONF',
  keys(_trace, current) {
    const keys: WhatIfKey[] = [
      { key: 'expandable_segments', values: ['false', 'true'] },
      { key: 'max_split_size_mb', values: ['none', '64', '128', '256', '512', '1024'] },
      { key: 'roundup_power2_divisions', values: ['off', '2', '4', '8', '[256:1,512:2,1024:4,>:8]'] },
    ];
    // The threshold acts only when a memory fraction is in force (CUDACachingAllocator's
    // garbage_collect_cached_blocks runs under set_per_process_memory_fraction).
    if (current['per_process_memory_fraction'] !== null && current['per_process_memory_fraction'] !== undefined) {
      keys.push({ key: 'garbage_collection_threshold', values: ['0', '0.6', '0.8'] });
    }
    return keys;
  },
  setting: allocConfLine,
};
