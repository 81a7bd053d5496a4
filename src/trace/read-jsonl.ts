import type { TraceBuilder } from './builder.js';
import { addRawEvent, RawEvent } from './event-fields.js';
import { JsonScanner, JsonSyntaxError } from './json-scanner.js';
import { parseEventObject, readHeader } from './read-json.js';
import type { ByteSource } from './source.js';

const RELEASE_AFTER = 1 << 20;

/** Moves the scanner past the end of the current line. */
function skipLine(sc: JsonScanner): void {
  for (;;) {
    const c = sc.peek();
    if (c < 0) return;
    sc.pos++;
    if (c === 0x0a) {
      sc.line++;
      sc.lineStart = sc.pos;
      return;
    }
  }
}

/** True when only blanks remain before the end of the line (the newline is left in place). */
function restOfLineBlank(sc: JsonScanner): boolean {
  for (;;) {
    const c = sc.peek();
    if (c < 0 || c === 0x0a) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
    sc.pos++;
  }
}

/**
 * Reads JSON Lines: one event object per line, an optional first header line
 * (`{"format":"memsim-trace","version":1,"meta":{…}}`), blank lines and `#` comment lines skipped.
 * A bad line is reported and reading goes on, so every problem is listed at once.
 */
export function readJsonl(src: ByteSource, b: TraceBuilder): void {
  const sc = new JsonScanner(src);
  sc.skipByteOrderMark();
  const ev = new RawEvent();
  let first = true;
  for (;;) {
    sc.singleLine = false;
    const c = sc.ws();
    if (c < 0) break;
    sc.singleLine = true;
    const line = sc.line;
    if (c === 0x23) {
      skipLine(sc);
      continue;
    }
    try {
      if (c !== 0x7b) {
        b.problem({ line, col: sc.col(), message: `expected a JSON object, found ${sc.describeHere()}` });
        skipLine(sc);
        continue;
      }
      if (first) {
        const start = sc.pos;
        const obj = sc.parseValue() as Record<string, unknown>;
        if ('format' in obj && !('op' in obj)) {
          b.meta = readHeader(obj, b, line);
        } else {
          // An event: read again as every later line is (its id and tag kept as bytes, and checked
          // so: parsed as a value, text that is not UTF-8 had become U+FFFD).
          sc.pos = start;
          parseEventObject(sc, ev);
          addRawEvent(b, ev, line);
        }
      } else {
        parseEventObject(sc, ev);
        addRawEvent(b, ev, line);
      }
      first = false;
      if (!restOfLineBlank(sc)) {
        b.problem({ line, col: sc.col(), message: `unexpected ${sc.describeHere()} after the event` });
        skipLine(sc);
      }
    } catch (e) {
      if (!(e instanceof JsonSyntaxError)) throw e;
      b.problem({ line: e.line, col: e.col, message: e.message });
      first = false;
      if (sc.line === e.line) skipLine(sc);
    }
    if (sc.pos > RELEASE_AFTER) sc.release();
  }
}
