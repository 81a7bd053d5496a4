/**
 * Attribution on a snapshot recorded with C++ frames as well as Python ones (PyTorch's default,
 * `stacks='all'`): test/fixtures/pytorch-gpu/gpt2-cpp.pickle, two training steps of a small GPT-2.
 * The backward pass runs on autograd's own threads, so its allocations have no Python frame: they are
 * held by the autograd node or formula that made them, never by the C library's thread start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, cppFunctionName, FALLBACK, frameText, USELESS } from '../../src/trace/pytorch/frames.js';
import { readTrace } from '../../src/trace/read.js';
import { FIXTURES, runCli, tempDir } from '../helpers.js';

const FILE = join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp.pickle');
const MiB = 1024 * 1024;

describe('C++ frame names', () => {
  it('are read as the function: no return type, parameter list or qualifiers', () => {
    expect(cppFunctionName('torch::autograd::generated::NllLossBackward0_apply_functional(std::vector<at::Tensor, std::allocator<at::Tensor> >&&, std::array<bool, 2ul>)')).toBe(
      'torch::autograd::generated::NllLossBackward0_apply_functional',
    );
    expect(cppFunctionName('at::Tensor torch::autograd::generated::details::mul_tensor_backward<at::Tensor>(at::Tensor, at::Tensor, c10::ScalarType)')).toBe(
      'torch::autograd::generated::details::mul_tensor_backward<at::Tensor>',
    );
    expect(cppFunctionName('at::(anonymous namespace)::create_out(c10::ArrayRef<long>, c10::ArrayRef<long>, c10::TensorOptions const&)')).toBe('at::(anonymous namespace)::create_out');
    expect(cppFunctionName('std::error_code::default_error_condition() const')).toBe('std::error_code::default_error_condition');
    expect(cppFunctionName('torch::autograd::Node::operator()(std::vector<at::Tensor, std::allocator<at::Tensor> >&&)')).toBe('torch::autograd::Node::operator()');
    expect(cppFunctionName('void std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::push_back(std::pair<int, int> const&)')).toBe(
      'std::vector<std::pair<int, int>, std::allocator<std::pair<int, int> > >::push_back',
    );
    expect(cppFunctionName('pthread_condattr_setpshared')).toBe('pthread_condattr_setpshared');
    expect(frameText({ filename: 'Functions.cpp', line: 0, name: 'torch::autograd::generated::TanhBackward0::apply(std::vector<at::Tensor>&&)' })).toBe(
      'Functions.cpp:0:torch::autograd::generated::TanhBackward0::apply',
    );
    // A Python frame's name is kept whole.
    expect(frameText({ filename: '/u/a.py', line: 3, name: '<lambda>(x)' })).toBe('/u/a.py:3:<lambda>(x)');
  });

  it('count autograd\'s nodes and formulas as holders, not the C library\'s thread start or the engine', () => {
    const f = (filename: string, name: string) => classify({ filename, line: 0, name });
    expect(f('Functions.cpp', 'torch::autograd::generated::NllLossBackward0_apply_functional(std::vector<at::Tensor>&&)')).toBe(FALLBACK);
    expect(f('??', 'at::Tensor torch::autograd::generated::details::mm_mat2_backward(at::Tensor const&, at::Tensor const&)')).toBe(FALLBACK);
    expect(f('??', 'torch::autograd::InputMetadata::reduce_grad(at::Tensor&) const')).toBe(FALLBACK);
    expect(f('engine.cpp', 'void torch::autograd::validate_outputs_impl<torch::autograd::Edge>(std::vector<torch::autograd::Edge> const&)')).toBe(FALLBACK);
    expect(f('??', 'torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)')).toBe(USELESS);
    expect(f('??', 'at::Tensor at::_sum_to<c10::SymInt>(at::Tensor, c10::ArrayRef<c10::SymInt>, bool)')).toBe(USELESS);
    for (const name of ['pthread_condattr_setpshared', '__clone', 'clone3', 'start_thread', '__libc_start_main']) expect(f('??', name)).toBe(USELESS);
    expect(f('engine.cpp', 'my_extension::launch(int)')).toBe(FALLBACK);
  });
});

describe('attribution on a GPU recording with C++ frames', () => {
  it('gives every allocation a stack, and no stack a C library frame', () => {
    const t = readTrace(FILE);
    const st = t.stacks!;
    expect(st.ofAllocation.length).toBe(625); // the alloc entries of the trace
    const noStack = st.ofAllocation.filter((s) => s === 0).length;
    expect(noStack).toBe(0);
    for (const f of st.frames) expect(f).not.toMatch(/:(?:pthread_\w+|__clone|start_thread|_start|__libc_\w+)$/);
  });

  it('names the backward nodes that hold memory at the peak, with the bytes the GPU held', () => {
    const out = runCli(['replay', FILE, '--format', 'json', '--top', '100']);
    expect(out.code).toBe(0);
    const peak = JSON.parse(out.stdout).attribution.peakLive as { liveBytes: number; top: { key: string; bytes: number; count: number }[] };
    expect(peak.top.reduce((s, g) => s + g.bytes, 0)).toBe(peak.liveBytes);
    const byKey = new Map(peak.top.map((g) => [g.key, g]));
    expect(byKey.get('Functions.cpp:0:torch::autograd::generated::NllLossBackward0_apply_functional')).toMatchObject({ bytes: 64 * MiB, count: 1 });
    expect(byKey.get('Functions.cpp:0:torch::autograd::generated::LogSoftmaxBackward0_apply_functional')).toMatchObject({ bytes: 64 * MiB, count: 1 });
    expect(byKey.get(':0:torch::autograd::generated::details::mm_mat2_backward')).toMatchObject({ bytes: 32 * MiB, count: 1 });
    expect([...byKey.keys()].some((k) => k.includes('(no stack)'))).toBe(false);
  });
});

describe("the real run's OOM in a simulation of its snapshot", () => {
  const OOM = join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp-oom.pickle');
  const rec = JSON.parse(readFileSync(join(FIXTURES, 'pytorch-gpu', 'gpt2-cpp-oom.json'), 'utf8')) as { total_memory: number; per_process_memory_fraction: number };
  const underFraction = ['--capacity', String(rec.total_memory), '--option', `per_process_memory_fraction=${rec.per_process_memory_fraction}`];

  it('leads the report when the simulation fails there too, with who held the memory then and PyTorch\'s message', () => {
    const text = runCli(['replay', OOM, '--no-color', ...underFraction]);
    expect(text.code).toBe(0);
    const status = text.stdout.split('\n').find((l) => /^[✘✔]/.test(l));
    expect(status).toBe("✘ the real run's OOM before event 749 (device_traces[0][1071]) is reproduced: fragmentation");
    expect(text.stdout).toContain('  held when the real run failed, by frame\n');
    expect(text.stdout).toContain('    CUDA out of memory. Tried to allocate 64.00 MiB.');
    const md = runCli(['replay', OOM, '--format', 'markdown', ...underFraction]);
    expect(md.stdout.split('\n')[0]).toBe("**❌ the real run's OOM before event 749 (device_traces[0][1071])** with `caching`: reproduced by this simulation: fragmentation");
    const page = join(tempDir(), 'oom.html');
    expect(runCli(['replay', OOM, '--format', 'html', '--output', page, ...underFraction]).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(`<p class="status bad">✘ <code>caching</code>: the real run's OOM before event 749 (device_traces[0][1071]) is reproduced: fragmentation</p>`);
    expect(html).toContain(`<summary>The real run's OOM before event 749 (device_traces[0][1071]), a request of 64.00 MiB: reproduced by this simulation: fragmentation</summary>\n<p>Held when the real run failed, by frame:</p>`);
  });

  it('holds the same allocations as the recorded allocator at its OOM', () => {
    const sim = JSON.parse(runCli(['replay', OOM, '--format', 'json', ...underFraction]).stdout);
    const real = JSON.parse(runCli(['replay', OOM, '--format', 'json', '--allocator', 'recorded']).stdout);
    expect(real.attribution.realRunOoms).toBeUndefined();
    expect(real.ooms).toHaveLength(1);
    expect(sim.ooms).toHaveLength(0);
    expect(sim.attribution.realRunOoms).toEqual(real.attribution.ooms);
    // 474.40 MiB allocated by PyTorch (the message): the requested bytes live then are below it.
    const held = sim.attribution.realRunOoms[0];
    expect(held.event).toBe(748);
    expect(held.liveBytes).toBeLessThanOrEqual(Math.round(474.4 * MiB));
    expect(held.top.map((h: { key: string }) => h.key)).toContain(':0:torch::autograd::generated::details::mm_mat2_backward');
  });

  it('says the simulation fits but the real run failed when the limit is not known', () => {
    const text = runCli(['replay', OOM, '--no-color']);
    expect(text.stdout.split('\n').find((l) => /^[✘✔]/.test(l))).toMatch(/^✔ fits: peak reserved 538\.00 MiB \(no capacity limit\), lower bound 505\.28 MiB; the real run's OOM is not reproduced \(see below\)$/);
    // The section's title is wrapped to the terminal's width.
    expect(text.stdout.replace(/\s+/g, ' ')).toContain("the real run's OOM before event 749 (device_traces[0][1071]), a request of 64.00 MiB: not reproduced by this simulation (see the notes) held when the real run failed, by frame ");
  });
});
