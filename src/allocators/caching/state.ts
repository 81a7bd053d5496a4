import type { AllocatorState, BlockState, SegmentState } from '../types.js';
import { type BlockStore, F_LIVE } from './blocks.js';

/**
 * The segments and their blocks, as DeviceCachingAllocator::snapshot reports them: one segment per
 * cudaMalloc, and one per contiguous mapped range of an expandable segment. Kinds are `small` and
 * `large`, with `-expandable` for expandable segments.
 */
export function captureState(store: BlockStore): AllocatorState {
  const segments: SegmentState[] = [];
  for (let head = 0; head < store.idLimit; head++) {
    if (((store.flags[head] as number) & F_LIVE) === 0 || (store.prev[head] as number) >= 0) continue;
    const expandable = (store.seg[head] as number) >= 0;
    const kind = `${store.isSmall(head) ? 'small' : 'large'}${expandable ? '-expandable' : ''}`;
    const stream = store.streamValues[store.streamOf[head] as number] as number;
    let current: SegmentState | null = null;
    for (let b = head; b >= 0; b = store.next[b] as number) {
      if (!store.isMapped(b)) {
        current = null;
        continue;
      }
      if (current === null) {
        current = { address: store.ptr[b] as number, sizeBytes: 0, kind, stream, blocks: [] };
        segments.push(current);
      }
      const block: BlockState = { address: store.ptr[b] as number, sizeBytes: store.size[b] as number, isFree: !store.isAllocated(b) };
      if (!block.isFree) {
        block.requestedBytes = store.requested[b] as number;
        block.allocEvent = store.event[b] as number;
      }
      current.blocks.push(block);
      current.sizeBytes += block.sizeBytes;
    }
  }
  segments.sort((x, y) => x.address - y.address);
  return { segments };
}
