import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitKey } from '../../src/report/holders.js';
import { cliTableLines, type Column, cutToWidth, drawnDirectly, tableLines, textWidth, wrap, wrapAtCommas } from '../../src/report/layout.js';
import { formatBytes, formatCount } from '../../src/util/bytes.js';

const widest = (lines: string[]): number => Math.max(...lines.map(textWidth));

describe('table layout', () => {
  const columns: Column[] = [
    { head: 'name', wrap: 'commas' },
    { head: 'bytes', align: 'right' },
    { head: 'calls', align: 'right', drop: 2 },
    { head: 'share', align: 'right', drop: 1 },
  ];
  const rows = [
    ['naive', '9.42 GiB', '5,202', '99.9%'],
    ['caching[expandable_segments=true,max_split_size_mb=256]', '9.89 GiB', '97', '95.2%'],
  ];

  it('draws a table that fits as it is, each column as wide as its widest cell', () => {
    expect(tableLines(columns, rows.slice(0, 1))).toEqual([
      '┌───────┬──────────┬───────┬───────┐',
      '│ name  │    bytes │ calls │ share │',
      '│ naive │ 9.42 GiB │ 5,202 │ 99.9% │',
      '└───────┴──────────┴───────┴───────┘',
    ]);
  });

  it('leaves out the columns that matter least, and names them, before breaking cells that may break late', () => {
    const lines = tableLines(columns, rows, { width: 50 });
    expect(lines).toEqual([
      '┌─────────────────────────────────────┬──────────┐',
      '│ name                                │    bytes │',
      '│ naive                               │ 9.42 GiB │',
      '│ caching[expandable_segments=true,   │ 9.89 GiB │',
      '│   max_split_size_mb=256]            │          │',
      '└─────────────────────────────────────┴──────────┘',
      '(left out at 50 columns: calls, share; --width 86',
      ' or --format json shows them)',
    ]);
    expect(widest(lines)).toBeLessThanOrEqual(50);
    // With room, nothing is left out and nothing breaks.
    expect(tableLines(columns, rows, { width: 86 })).toHaveLength(5);
  });

  it('breaks a configuration after its commas, the later lines hanging two columns in', () => {
    expect(wrapAtCommas('caching[expandable_segments=true,max_split_size_mb=256] (current)', 40)).toEqual([
      'caching[expandable_segments=true,',
      'max_split_size_mb=256] (current)',
    ]);
    expect(wrapAtCommas('bfc[a=1,b=2]', 40)).toEqual(['bfc[a=1,b=2]']);
  });

  it('cuts a key with its own function before leaving out a column', () => {
    const keyed: Column[] = [{ head: 'tag', wrap: (k, w) => `…${k.slice(k.length - (w - 1))}`, minWidth: 10 }, { head: 'bytes', align: 'right' }, { head: 'count', align: 'right', drop: 1 }];
    expect(tableLines(keyed, [['model.layers.11.attention.output', '1.00 KiB', '3']], { width: 40 })).toEqual([
      '┌───────────────────┬──────────┬───────┐',
      '│ tag               │    bytes │ count │',
      '│ …attention.output │ 1.00 KiB │     3 │',
      '└───────────────────┴──────────┴───────┘',
    ]);
  });

  it('lays out plain columns two spaces apart, the last one unpadded', () => {
    expect(tableLines([{ head: '#', align: 'right' }, { head: 'configuration', wrap: 'commas', breakEarly: true }], [['1', 'bfc[allow_growth=true,garbage_collection=false]']], { width: 30, style: 'plain' })).toEqual([
      '#  configuration',
      '1  bfc[allow_growth=true,',
      '     garbage_collection=false]',
    ]);
  });

  it('keeps every table within the width whenever its columns can be broken or left out (fast-check)', () => {
    const word = fc.stringMatching(/^[a-z0-9.]{1,12}$/);
    const cell = fc.array(word, { minLength: 1, maxLength: 6 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.integer({ min: 40, max: 160 }), fc.array(fc.array(cell, { minLength: 5, maxLength: 5 }), { minLength: 1, maxLength: 6 }), (width, body) => {
        const cols: Column[] = [
          { head: 'key', wrap: (k, w) => k.slice(0, w) , minWidth: 12 },
          { head: 'text', wrap: 'words' },
          { head: 'a', drop: 1 },
          { head: 'b', drop: 2 },
          { head: 'c', drop: 3 },
        ];
        const lines = tableLines(cols, body.map((r) => r.map((c) => c.slice(0, 12))), { width });
        return widest(lines) <= width;
      }),
    );
  });
});

describe('wrap', () => {
  it('keeps a number with its unit and indents every line', () => {
    expect(wrap('live 148.00 MiB + request 2.00 GiB exceeds', 20, '  ')).toEqual(['  live 148.00 MiB +', '  request 2.00 GiB', '  exceeds']);
  });
});

describe('units', () => {
  it('IEC with two decimals, whole bytes below 1 KiB, never 1000 or more of a unit', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1000)).toBe('1000 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(999 * 1024)).toBe('999.00 KiB');
    // 1006 MiB next to GiB figures reads as GiB.
    expect(formatBytes(1006 * 2 ** 20)).toBe('0.98 GiB');
    expect(formatBytes(1000 * 2 ** 20)).toBe('0.98 GiB');
    // 999.996 KiB rounds to 1000.00: the next unit instead.
    expect(formatBytes(Math.round(999.996 * 1024))).toBe('0.98 MiB');
    expect(formatBytes(-1006 * 2 ** 30)).toBe('-0.98 TiB');
    expect(formatBytes(Infinity)).toBe('unlimited');
  });

  it('every formatted size has at most three digits before the point (fast-check)', () => {
    fc.assert(fc.property(fc.integer({ min: 1024, max: Number.MAX_SAFE_INTEGER }), (n) => /^\d{1,3}\.\d\d [KMGTPE]iB$/.test(formatBytes(n))));
  });

  it('thousands separators on counts', () => {
    expect([formatCount(0), formatCount(999), formatCount(1000), formatCount(1234567), formatCount(-4980)]).toEqual(['0', '999', '1,000', '1,234,567', '-4,980']);
  });
});

describe('box tables drawn without cli-table3', () => {
  // Plain lines (ASCII and the report's own symbols), each cell already broken to its column's width.
  const plainLine = fc.stringMatching(/^[ -~…×·→≤▅█─]{0,12}$/);
  const table = fc.integer({ min: 1, max: 5 }).chain((n) =>
    fc.record({
      aligns: fc.array(fc.constantFrom<'left' | 'right' | undefined>('left', 'right', undefined), { minLength: n, maxLength: n }),
      heads: fc.array(fc.array(plainLine, { minLength: 1, maxLength: 2 }), { minLength: n, maxLength: n }),
      body: fc.array(fc.array(fc.array(plainLine, { minLength: 0, maxLength: 3 }), { minLength: n, maxLength: n }), { maxLength: 6 }),
      slack: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: n, maxLength: n }),
    }),
  );

  it('draws what cli-table3 draws, line for line, for plain cells that fit', () => {
    fc.assert(
      fc.property(table, ({ aligns, heads, body, slack }) => {
        const cols: Column[] = aligns.map((align, j) => ({ head: `h${j}`, ...(align ? { align } : {}) }));
        const widths = cols.map((_, j) => Math.max(1, ...[heads, ...body].flatMap((r) => (r[j] ?? []).map((l) => l.length))) + (slack[j] as number));
        const direct = drawnDirectly(cols, widths, heads, body);
        expect(direct).not.toBeNull();
        expect(direct).toEqual(cliTableLines(cols, widths, heads, body));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves to cli-table3 the lines it measures differently or cuts: wide characters, emoji, colours, overflow', () => {
    const cols: Column[] = [{ head: 'a' }, { head: 'b', align: 'right' }];
    for (const cell of ['表', '✔ ok', '\u001b[1mx\u001b[22m', 'toolong']) {
      expect(drawnDirectly(cols, [4, 4], [['a'], ['b']], [[[cell], ['1']]])).toBeNull();
    }
    // Through the layout, such a table is still drawn (by cli-table3), each line as wide as the others.
    const lines = tableLines(cols, [['表', '1'], ['ok', '22']]);
    expect(lines[1]).toBe('│ a  │  b │');
    expect(lines[2]).toBe('│ 表 │  1 │');
  });

  it('measures wide characters, emoji and combining marks as cli-table3 draws them: a cell that has room is never cut', () => {
    expect(['emoji 🚀 tag', '漢字のタグ', 'e\u0301te', 'plain'].map(textWidth)).toEqual([12, 10, 3, 5]);
    const lines = tableLines([{ head: 'tag' }, { head: 'n', align: 'right' }], [['emoji 🚀 tag', '1'], ['漢字のタグ', '22']]);
    expect(lines.slice(1, 4)).toEqual(['│ tag          │  n │', '│ emoji 🚀 tag │  1 │', '│ 漢字のタグ   │ 22 │']);
    // Keys are cut to a width, not to a count of characters.
    expect(fitKey('漢字のタグの名前', 'tag', 9)).toBe('…グの名前');
    expect(textWidth(fitKey('漢字のタグの名前', 'tag', 9))).toBeLessThanOrEqual(9);
    expect(cutToWidth('ab漢字', 3)).toBe('ab');
    expect(cutToWidth('ab漢字', 4)).toBe('ab漢');
  });
});
