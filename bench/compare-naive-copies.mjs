// Registers copies of the naive allocator under other names, for benchmarking `compare` with
// several rows before other allocators exist. Imported by the benchmark and by each compare worker;
// never part of the allocator registry of memsim itself.
import { naive } from '../dist/allocators/naive.js';
import { listAllocators, registerAllocator } from '../dist/allocators/registry.js';

export const COPIES = ['naive-b', 'naive-c', 'naive-d'];
for (const name of COPIES) {
  if (!listAllocators().some((d) => d.name === name)) registerAllocator({ ...naive, name });
}
