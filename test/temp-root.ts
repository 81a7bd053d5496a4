// Global setup of the test run: every temporary directory a test makes (`tempDir` in helpers.ts)
// goes under one directory of this run, removed when the run ends, so runs leave nothing in the
// system's temporary directory. Other runs at the same time have roots of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'memsim-tests-'));
  process.env.MEMSIM_TEST_TMP = root;
  return () => rmSync(root, { recursive: true, force: true });
}
