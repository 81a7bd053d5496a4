import type { TraceBuilder } from './builder.js';
import type { CsvScanner } from './csv.js';
import { JsonScanner, JsonSyntaxError } from './json-scanner.js';
import { readHeader } from './read-json.js';
import type { TraceMeta } from './model.js';

/** What a metadata line holds: the format's name (a comment that holds it and a `{` is meant to be read). */
const MARK = Buffer.from('"memsim-trace"');

/**
 * The metadata comment line that memsim writes first in a CSV trace: `# ` and the header line of a
 * JSON Lines trace, so that the name, capacity and the rest of `meta` survive a CSV:
 *
 *     # {"format":"memsim-trace","version":1,"meta":{"name":"training","capacityBytes":1073741824}}
 */
export function csvMetaLine(meta: TraceMeta): string {
  return `# ${JSON.stringify({ format: 'memsim-trace', version: 1, meta })}\n`;
}

/**
 * Reads the comment and blank lines before a CSV header row, taking `meta` from a metadata line
 * ({@link csvMetaLine}: a comment whose text is a JSON object naming the format `memsim-trace`);
 * other comments stay comments. A comment that starts with `{` and names the format but is not valid
 * JSON is a problem at its line (it was meant to be read). Leaves the scanner at the header row.
 */
export function readCsvMeta(sc: CsvScanner, b: TraceBuilder): void {
  const src = sc.src;
  for (;;) {
    const first = byteAt(sc, sc.pos);
    if (first === 0x0d || first === 0x0a) {
      sc.pos += first === 0x0d && byteAt(sc, sc.pos + 1) === 0x0a ? 2 : 1;
      sc.nextLine++;
      continue;
    }
    if (first !== 0x23) return;
    const line = sc.nextLine;
    let p = sc.pos + 1;
    while (byteAt(sc, p) === 0x20 || byteAt(sc, p) === 0x09) p++;
    let end = p;
    let c: number;
    while ((c = byteAt(sc, end)) >= 0 && c !== 0x0a) end++;
    if (byteAt(sc, p) === 0x7b && sc.src.buf.subarray(p, end).includes(MARK)) {
      const json = new JsonScanner(src);
      json.pos = p;
      json.lineStart = sc.pos;
      json.line = line;
      json.singleLine = true;
      try {
        const header = json.parseValue();
        if (json.ws() >= 0) json.fail(`unexpected ${json.describeHere()} after the metadata`);
        b.meta = readHeader(header as Record<string, unknown>, b, line);
      } catch (e) {
        if (!(e instanceof JsonSyntaxError)) throw e;
        b.problem({ line, col: e.col, message: `the metadata line is not valid JSON: ${e.message}` });
      }
      src.lineOf = () => sc.line;
    }
    sc.pos = c === 0x0a ? end + 1 : end;
    sc.nextLine++;
  }
}

function byteAt(sc: CsvScanner, p: number): number {
  while (p >= sc.src.end) if (!sc.src.fill()) return -1;
  return sc.src.buf[p] as number;
}
