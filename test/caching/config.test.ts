import { describe, expect, it } from 'vitest';
import { getAllocator, resolveOptions } from '../../src/allocators/index.js';
import { AllocConfError, formatConf, parseAllocConf, tokenize } from '../../src/allocators/caching/config.js';
import { defaultOptionValues, settingsFromOptions } from '../../src/allocators/caching/options.js';
import { UsageError } from '../../src/errors.js';
import { MiB } from '../helpers.js';

const fails = (conf: string): string => {
  try {
    parseAllocConf(conf);
  } catch (e) {
    expect(e).toBeInstanceOf(AllocConfError);
    return (e as Error).message;
  }
  throw new Error(`"${conf}" was accepted`);
};

describe('PYTORCH_CUDA_ALLOC_CONF parsing', () => {
  it('tokenizes on , : [ ] and drops whitespace', () => {
    expect(tokenize(' max_split_size_mb : 128 , roundup_power2_divisions:[256:1,>:8]')).toEqual([
      'max_split_size_mb', ':', '128', ',', 'roundup_power2_divisions', ':', '[', '256', ':', '1', ',', '>', ':', '8', ']',
    ]);
  });

  it('reads every setting the caching allocator models', () => {
    const p = parseAllocConf(
      'expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.6,max_non_split_rounding_mb:64,per_process_memory_fraction:0.5',
    );
    expect(p).toEqual({
      expandableSegments: true,
      maxSplitSizeBytes: 128 * MiB,
      garbageCollectionThreshold: 0.6,
      maxNonSplitRoundingBytes: 64 * MiB,
      perProcessMemoryFraction: 0.5,
    });
    expect(parseAllocConf('')).toEqual({});
  });

  it('reads roundup_power2_divisions as one value or per MiB interval', () => {
    expect(parseAllocConf('roundup_power2_divisions:4').roundupPower2Divisions).toEqual(new Array(16).fill(4));
    // The first boundary also fills the intervals below it; ">" fills those after the last one.
    expect(parseAllocConf('roundup_power2_divisions:[256:1,512:2,1024:4,>:8]').roundupPower2Divisions).toEqual([
      1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 8, 8, 8, 8,
    ]);
    // An interval between two boundaries that are not neighbours stays 0 (no rounding): PyTorch
    // 2.11 recorded {'64': 8, '128': 0, '256': 4, '512': 1, …} for this setting in the snapshot
    // test/fixtures/pytorch-gpu/tuned-list.pickle (allocator_settings.roundup_power2_divisions).
    expect(parseAllocConf('roundup_power2_divisions:[64:8,256:4,>:1]').roundupPower2Divisions).toEqual([
      8, 8, 8, 8, 8, 8, 8, 0, 4, 1, 1, 1, 1, 1, 1, 1,
    ]);
  });

  it('refuses bad values with PyTorch\'s own messages', () => {
    expect(fails('max_split_size_mb:10')).toBe('CachingAllocator option max_split_size_mb too small, must be >= 20');
    expect(fails('max_non_split_rounding_mb:5')).toBe('CachingAllocator option max_non_split_rounding_mb too small, must be >= 20');
    expect(fails('garbage_collection_threshold:1.5')).toBe('garbage_collect_threshold is invalid, set it in (0.0, 1.0)');
    expect(fails('garbage_collection_threshold:0')).toBe('garbage_collect_threshold is invalid, set it in (0.0, 1.0)');
    expect(fails('roundup_power2_divisions:3')).toBe('For roundups, the divisions has to be power of 2 ');
    expect(fails('roundup_power2_divisions:[256:3]')).toBe('For roundups, the divisions has to be power of 2 or 0 to disable roundup ');
    expect(fails('roundup_power2_divisions:[100:2]')).toBe('For roundups, the intervals have to be power of 2 ');
    expect(fails('per_process_memory_fraction:1.5')).toBe('per_process_memory_fraction is invalid, set it in [0.0, 1.0]');
    expect(fails('backend:foo')).toBe('Unknown allocator backend, options are native and cudaMallocAsync');
    expect(fails('max_split_size:128')).toBe("Unrecognized key 'max_split_size' in CUDA allocator config.");
    // A key without ':' is skipped by the first parser, which then runs out of tokens.
    // Where PyTorch shows C++ exception text ("Index out of bounds in ConfigTokenizer", "stoull",
    // "stod") or names its tokenizer, the message says what is wrong in plain words.
    expect(fails('max_split_size_mb=128')).toBe("'max_split_size_mb=128': a key and its value are separated by ':' (write max_split_size_mb:128)");
    expect(fails('max_split_size_mb')).toBe('the configuration ends where max_split_size_mb needs more (write max_split_size_mb:VALUE)');
    expect(fails('roundup_power2_divisions:[256:')).toBe('the configuration ends where roundup_power2_divisions needs more (write roundup_power2_divisions:VALUE)');
    expect(fails('max_split_size_mb:abc')).toBe("max_split_size_mb expects a whole number, got 'abc'");
    expect(fails('max_split_size_mb:99999999999999999999999')).toBe('max_split_size_mb: 99999999999999999999999 is out of range (a size is at most 2^64 - 1)');
    expect(fails('garbage_collection_threshold:x')).toBe("garbage_collection_threshold expects a number, got 'x'");
    expect(fails(':')).toBe("expected a key (e.g. expandable_segments:True), found ':'");
    expect(fails('expandable_segments:true')).toBe("expandable_segments expects True or False (with capitals, as PyTorch reads it), got 'true'");
    expect(fails('expandable_segments:Maybe')).toBe("expandable_segments expects True or False (with capitals, as PyTorch reads it), got 'Maybe'");
    expect(fails('roundup_power2_divisions:[')).toBe("roundup_power2_divisions: the list opened with '[' is not closed with ']'");
    expect(fails('foo:[1,2')).toBe("foo: the list opened with '[' is not closed with ']'");
  });

  it('reports the common keys before the unknown ones, as the two parsers run in that order', () => {
    expect(fails('foo:1,max_split_size_mb:5')).toBe('CachingAllocator option max_split_size_mb too small, must be >= 20');
  });

  it('writes settings back in the same syntax', () => {
    const s = settingsFromOptions({ ...defaultOptionValues(), conf: 'max_split_size_mb:128,expandable_segments:True' }, defaultOptionValues());
    expect(formatConf(s)).toBe('max_split_size_mb:128,expandable_segments:True');
  });
});

describe('caching options', () => {
  const def = getAllocator('caching');
  const usage = (given: Record<string, unknown>): string => {
    try {
      resolveOptions(def, given);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };

  it('validates conf and each setting with PyTorch\'s messages', () => {
    expect(usage({ conf: 'max_split_size_mb:10' })).toBe(
      'allocator "caching", option conf=max_split_size_mb:10: CachingAllocator option max_split_size_mb too small, must be >= 20',
    );
    expect(usage({ max_split_size_mb: '10' })).toContain('CachingAllocator option max_split_size_mb too small, must be >= 20');
    expect(usage({ garbage_collection_threshold: '2' })).toContain('garbage_collect_threshold is invalid, set it in (0.0, 1.0)');
    expect(usage({ roundup_power2_divisions: '3' })).toContain('For roundups, the divisions has to be power of 2 ');
  });

  it('lets an individual option beat conf, and conf beat the defaults', () => {
    const base = defaultOptionValues();
    const values = resolveOptions(def, { conf: 'max_split_size_mb:128,expandable_segments:True', max_split_size_mb: '256' }).values;
    const s = settingsFromOptions(values as never, base);
    expect(s.maxSplitSizeBytes).toBe(256 * MiB);
    expect(s.expandableSegments).toBe(true);
    expect(s.perProcessMemoryFraction).toBeNull();
  });
});
