import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { canonicalConfiguration, formatConfiguration, parseConfiguration, splitConfigurations, withMoreOptions } from '../../src/util/configuration.js';

describe('configurations NAME[key=value,…]', () => {
  it('parses a name alone and a name with options, values keeping their commas and brackets', () => {
    expect(parseConfiguration('caching')).toEqual({ name: 'caching', options: {} });
    expect(parseConfiguration(' caching[ expandable_segments = true , max_split_size_mb=256 ] ')).toEqual({
      name: 'caching',
      options: { expandable_segments: 'true', max_split_size_mb: '256' },
    });
    expect(parseConfiguration('caching[roundup_power2_divisions=[256:1,512:2,1024:4,>:8],expandable_segments=true]').options).toEqual({
      roundup_power2_divisions: '[256:1,512:2,1024:4,>:8]',
      expandable_segments: 'true',
    });
    expect(parseConfiguration('caching[conf=expandable_segments:True,max_split_size_mb:128]').options).toEqual({ conf: 'expandable_segments:True,max_split_size_mb:128' });
    expect(parseConfiguration('plan:best[alignment=256]')).toEqual({ name: 'plan:best', options: { alignment: '256' } });
    expect(parseConfiguration('caching[]')).toEqual({ name: 'caching', options: {} });
  });

  it('splits lists at the commas outside brackets', () => {
    expect(splitConfigurations('caching, caching[expandable_segments=true,max_split_size_mb=256],bfc[allow_growth=true]')).toEqual([
      'caching',
      'caching[expandable_segments=true,max_split_size_mb=256]',
      'bfc[allow_growth=true]',
    ]);
    expect(splitConfigurations('caching[roundup_power2_divisions=[1:2,>:4]],naive,')).toEqual(['caching[roundup_power2_divisions=[1:2,>:4]]', 'naive']);
  });

  it('formats the canonical text: no spaces, options in their order, no empty brackets', () => {
    expect(canonicalConfiguration(' caching[ b=2 , a = 1 ] ')).toBe('caching[b=2,a=1]');
    expect(canonicalConfiguration('naive[]')).toBe('naive');
  });

  it('round-trips: parse(format(c)) is c, for any names and values the syntax allows', () => {
    const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/);
    const value = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9:.>-]{0,10}$/),
      fc.array(fc.stringMatching(/^[0-9>]{1,4}:[0-9]{1,2}$/), { minLength: 1, maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
      fc.stringMatching(/^[a-z_]{1,8}:[A-Za-z0-9]{1,4}(,[a-z_]{1,8}:[A-Za-z0-9]{1,4}){0,2}$/),
    );
    const config = fc.record({
      name: fc.stringMatching(/^[a-z][a-z:-]{0,12}$/),
      options: fc.dictionary(key, value, { maxKeys: 5 }),
    });
    fc.assert(
      fc.property(config, (c) => {
        const text = formatConfiguration(c);
        expect(parseConfiguration(text)).toEqual(c);
        expect(formatConfiguration(parseConfiguration(text))).toBe(text);
        expect(splitConfigurations(`${text},${text}`)).toEqual([text, text]);
      }),
    );
  });

  it('names the text when it is malformed', () => {
    expect(() => parseConfiguration('caching[expandable_segments=true')).toThrow(UsageError);
    expect(() => parseConfiguration('caching[expandable_segments=true')).toThrow('"caching[expandable_segments=true" is not NAME[key=value,…]');
    expect(() => parseConfiguration('caching[true]')).toThrow('"caching[true]": expected key=value inside the brackets, got "true"');
    expect(() => parseConfiguration('caching[a=1,a=2]')).toThrow('"caching[a=1,a=2]": option a is given twice');
    expect(() => parseConfiguration('caching[a=[1]')).toThrow('unbalanced brackets');
    expect(() => parseConfiguration('')).toThrow(UsageError);
  });

  it('adds options given apart, and refuses one set twice', () => {
    const c = parseConfiguration('naive[page=64KiB]');
    expect(withMoreOptions(c, { alignment: 256 })).toEqual({ page: '64KiB', alignment: 256 });
    expect(() => withMoreOptions(c, { page: '4KiB' })).toThrow('naive[page=64KiB]: option page is set both in the brackets and by --option');
  });
});
