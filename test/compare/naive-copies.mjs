// Imported by compare worker threads in tests: registers the copies of naive that the test file
// registered in its own thread, in the built registry that workers use.
import { naive } from '../../dist/allocators/naive.js';
import { listAllocators, registerAllocator } from '../../dist/allocators/registry.js';

for (const name of ['naive-b', 'naive-c', 'naive-d']) {
  if (!listAllocators().some((d) => d.name === name)) registerAllocator({ ...naive, name });
}
