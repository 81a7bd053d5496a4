/**
 * Attribution on a snapshot recorded with C++ frames as well as Python ones (PyTorch's default,
 * `stacks='all'`): test/fixtures/pytorch-gpu/gpt2-cpp.pickle, two training steps of a small GPT-2.
 * The backward pass runs on autograd's own threads, so its allocations have no Python frame: they are
 * held by the autograd node or formula that made them, never by the C library's thread start.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, cppFunctionName, FALLBACK, frameText, USELESS } from '../../src/trace/pytorch/frames.js';
import { readTrace } from '../../src/trace/read.js';
import { FIXTURES, runCli } from '../helpers.js';

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
