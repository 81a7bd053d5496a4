import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

it('the README allocator tables match the registry (npm run readme regenerates them)', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'readme.mjs'), '--check'], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
});
