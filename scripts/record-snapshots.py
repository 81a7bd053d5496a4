"""
Records the PyTorch CUDA memory snapshots in test/fixtures/pytorch-gpu: known allocation sequences,
each in a fresh process with its own PYTORCH_CUDA_ALLOC_CONF (and memory fraction), recorded from the
first allocation with torch.cuda.memory._record_memory_history. Beside each snapshot, NAME.json holds
what the snapshot does not: the memory fraction, the device's total memory, the messages of the OOMs
the program caught, and torch.cuda.memory_stats() at the dump.

    python3 scripts/record-snapshots.py OUT_DIR      # needs a CUDA GPU and PyTorch
"""
import json, os, subprocess, sys

MiB = 1 << 20
OUT = sys.argv[1] if len(sys.argv) > 1 else 'out'

# Per-interval rounding (the list form), a small non-split rounding, oversize blocks and collection.
TUNED_LIST = 'max_split_size_mb:40,max_non_split_rounding_mb:24,roundup_power2_divisions:[64:8,256:4,>:1],garbage_collection_threshold:0.6'

SCENARIOS = {
    # name: (PYTORCH_CUDA_ALLOC_CONF, fraction-target bytes or None)
    'basics': ('', None),
    'oom-fraction': ('', 1 << 30),
    'expandable': ('expandable_segments:True', None),
    'tuned': ('max_split_size_mb:64,roundup_power2_divisions:4,garbage_collection_threshold:0.5', 1 << 30),
    'train': ('', None),
    'train-expandable': ('expandable_segments:True', None),
    'train-oom': ('', 3 << 29),
    'train-oom-expandable': ('expandable_segments:True', 3 << 29),
    'oom-device': ('', None),
    'streams': ('', None),
    'gpt2': ('', None),
    'gpt2-cpp': ('', None),
    'gpt2-cpp-oom': ('', 600 << 20),
    'tuned-list': (TUNED_LIST, 1 << 30),
    'train-tuned-list': (TUNED_LIST, 3 << 29),
}

# Scenarios recorded with C++ frames as well as Python ones (PyTorch's default, stacks='all').
CPP_STACKS = {'gpt2-cpp', 'gpt2-cpp-oom'}


def child(name, out):
    import torch
    fr_target = SCENARIOS[name][1]
    total = torch.cuda.get_device_properties(0).total_memory
    fraction = None
    allowed = os.environ.get('ALLOWED_BYTES')
    if allowed:
        # floor(fraction * total) is the limit: aim half a byte above it.
        fraction = (int(allowed) + 0.5) / total
        torch.cuda.set_per_process_memory_fraction(fraction, 0)
    elif fr_target is not None:
        fraction = fr_target / total
        torch.cuda.set_per_process_memory_fraction(fraction, 0)
    torch.cuda.memory._record_memory_history(enabled='all', context='all', stacks='all' if name in CPP_STACKS else 'python', max_entries=1000000)
    ooms = []

    def u8(n):
        return torch.empty(n, dtype=torch.uint8, device='cuda')

    def try_oom(fn):
        try:
            return fn()
        except torch.OutOfMemoryError as e:
            ooms.append(str(e))
            return None

    keep = {}
    if name == 'basics':
        k = keep
        for key, n in [('a', 1), ('b', 511), ('c', 512), ('d', 513), ('e', MiB - 1), ('f', MiB), ('g', MiB + 1),
                       ('h', 5 * MiB), ('i', 10 * MiB), ('j', 10 * MiB + 1), ('k', 30 * MiB), ('l', 100 * MiB)]:
            k[key] = u8(n)
        del k['b'], k['d']
        k['m'] = u8(700)
        del k['h']
        k['n'] = u8(3 * MiB)
        del k['i'], k['g']
        k['o'] = u8(12 * MiB)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            k['p'] = u8(4 * MiB)
            k['q'] = u8(2000)
        del k['p']
        with torch.cuda.stream(s):
            k['r'] = u8(4 * MiB)
        t = u8(6 * MiB)
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            t.add_(1)
        t.record_stream(s)
        del t
        torch.cuda.synchronize()
        k['u'] = u8(6 * MiB)
        torch.cuda.empty_cache()
        k['v'] = u8(25 * MiB)
        k['w'] = u8(1500)
        for key in ['a', 'c', 'e', 'f', 'j', 'k']:
            del k[key]
        k['x'] = u8(9 * MiB)
        k['y'] = u8(MiB + 512)
        torch.cuda.empty_cache()
        keep.clear()
        k['z'] = u8(2 * MiB)
    elif name == 'oom-fraction':
        k = keep
        for i in range(4):
            k['x%d' % i] = u8(200 * MiB)
        del k['x1']
        k['y'] = try_oom(lambda: u8(300 * MiB))  # released cache, then fits
        try_oom(lambda: u8(200 * MiB))  # too little memory
        del k['x2']
        k['p'] = u8(150 * MiB)  # splits the cached 200 MiB block
        k['q'] = u8(100 * MiB)
        try_oom(lambda: u8(60 * MiB))  # 50 MiB cached in a split segment: fragmentation
        k['small'] = [u8(4096 * (i + 1)) for i in range(20)]
        del k['q']
        k['r'] = u8(80 * MiB)
    elif name == 'expandable':
        k = keep
        k['a'] = u8(3 * MiB)
        k['b'] = u8(30 * MiB)
        k['c'] = u8(100)
        k['d'] = u8(50 * MiB)
        del k['b']
        k['e'] = u8(10 * MiB)
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            k['f'] = u8(8 * MiB)
            k['g'] = u8(64)
        del k['a']
        torch.cuda.empty_cache()
        k['h'] = u8(40 * MiB)
        del k['d'], k['f']
        k['i'] = u8(70 * MiB)
        k['j'] = [u8(300 * 1024 * (i + 1)) for i in range(8)]
        del k['e']
        torch.cuda.empty_cache()
        keep.clear()
        torch.cuda.empty_cache()
        k['z'] = u8(5 * MiB)
    elif name == 'tuned':
        k = keep
        k['a'] = u8(70 * MiB)   # oversize: never split
        k['b'] = u8(37 * MiB)   # rounds up to 40 MiB with 4 divisions
        k['c'] = u8(100 * MiB)
        k['d'] = u8(129 * MiB + 1)
        del k['a']
        k['e'] = u8(65 * MiB)   # takes the cached 70 MiB block (within max_non_split_rounding)
        del k['c']
        k['f'] = u8(90 * MiB)   # oversize: the cached 100 MiB block would leave 10 MiB
        k['g'] = [u8((i + 1) * 3 * MiB + 7) for i in range(10)]
        del k['b']
        for i in range(6):
            k['h%d' % i] = u8(45 * MiB)
        for i in range(0, 6, 2):
            del k['h%d' % i]
        k['i'] = u8(120 * MiB)   # past the GC threshold: cached blocks collected
        try_oom(lambda: u8(700 * MiB))
        k['j'] = u8(33 * MiB)
    elif name == 'tuned-list':
        k = keep
        k['a'] = u8(3 * MiB + 1)     # 8 divisions per power of two below 128 MiB
        k['b'] = u8(21 * MiB + 3)    # 22 MiB (steps of 2 MiB in [16, 32))
        k['c'] = u8(80 * MiB)        # oversize (max_split_size_mb:40)
        k['d'] = u8(100 * MiB + 1)   # 104 MiB (steps of 8 MiB in [64, 128))
        k['e'] = u8(200 * MiB)       # not rounded: PyTorch leaves [128, 256) at 0 divisions
        del k['c']
        k['f'] = u8(70 * MiB)        # the cached 80 MiB block: 80 < 70 + 24
        del k['f']
        k['g'] = u8(50 * MiB)        # not that block: 80 >= 50 + 24
        del k['d']
        k['h'] = [u8(s) for s in (700, 513 * 1024, 1024 * 1024 + 1, 5 * MiB + 7, 70 * MiB)]
        del k['e']
        k['i'] = u8(260 * MiB)       # 320 MiB (4 divisions of [256, 512))
        del k['b']
        k['j'] = u8(61 * MiB)        # past the collection threshold (0.6 GiB): cached segments freed
        try_oom(lambda: u8(600 * MiB))
        del k['i']
        k['l'] = [u8((i + 1) * 9 * MiB + 11) for i in range(6)]
    elif name == 'oom-device':
        k = keep
        block = (total // 5) // (2 * MiB) * (2 * MiB)
        for i in range(4):
            k['x%d' % i] = u8(block)
        del k['x3']
        try_oom(lambda: u8(2 * block))  # the cache released, then the device refuses
        k['y'] = u8(block // 2)
        k['z'] = [u8(MiB * (i + 1)) for i in range(3)]
    elif name == 'streams':
        k = keep
        s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
        k['a'] = u8(8 * MiB)
        k['b'] = u8(3000)
        s1.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s1):
            torch.cuda._sleep(200_000_000)  # keeps s1 busy while the frees below wait for it
            k['a'].add_(1)
            k['c'] = u8(6 * MiB)
        k['a'].record_stream(s1)
        k['b'].record_stream(s1)
        del k['a'], k['b']  # pending until s1 passes this point
        k['d'] = u8(8 * MiB)  # cannot take a's block yet
        k['e'] = u8(3000)
        with torch.cuda.stream(s2):
            k['f'] = u8(8 * MiB)
            k['g'] = u8(500)
        del k['f']
        with torch.cuda.stream(s2):
            k['h'] = u8(4 * MiB)
        torch.cuda.synchronize()
        k['i'] = u8(8 * MiB)  # a's block, now free
        k['j'] = u8(3000)
        with torch.cuda.stream(s1):
            del k['c']
            k['l'] = u8(2 * MiB)
    elif name in ('gpt2', 'gpt2-cpp', 'gpt2-cpp-oom'):
        from transformers import GPT2Config, GPT2LMHeadModel
        torch.manual_seed(0)
        layers = 4 if name == 'gpt2' else 2
        model = GPT2LMHeadModel(GPT2Config(n_layer=layers, n_embd=512, n_head=8, n_positions=512, vocab_size=8192, bos_token_id=0, eos_token_id=0)).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        try:  # the loop's tensors live until the next step replaces them
            for _ in range(3 if name == 'gpt2' else 2):
                ids = torch.randint(0, 8192, (8, 256), device='cuda')
                with torch.autocast('cuda', dtype=torch.bfloat16):
                    res = model(input_ids=ids, labels=ids)
                res.loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
        except torch.OutOfMemoryError as e:
            ooms.append(str(e))
    elif name in ('train', 'train-expandable', 'train-oom', 'train-oom-expandable', 'train-tuned-list'):
        import torch.nn as nn
        torch.manual_seed(0)
        model = nn.Sequential(
            nn.Conv1d(64, 128, 3, padding=1), nn.GELU(), nn.Flatten(), nn.Linear(128 * 64, 2048), nn.GELU(),
            nn.LayerNorm(2048), nn.Linear(2048, 2048), nn.GELU(), nn.Linear(2048, 512)).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        batches = [32, 32, 64, 64] if not name.startswith('train-oom') and name != 'train-tuned-list' else [256, 1024, 4096, 16384, 65536]
        for b in batches:
            def step():
                x = torch.randn(b, 64, 64, device='cuda')
                with torch.autocast('cuda', dtype=torch.bfloat16):
                    y = model(x)
                loss = y.float().pow(2).mean()
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                return loss.item()
            if try_oom(step) is None and (name.startswith('train-oom') or name == 'train-tuned-list'):
                break
    torch.cuda.synchronize()
    conf = os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')
    stem = name
    if conf != SCENARIOS[name][0]:
        stem += '+' + conf.replace(':', '-').replace(',', '_')
    if allowed:
        stem += '@' + allowed
    torch.cuda.memory._dump_snapshot(os.path.join(out, stem + '.pickle'))
    stats = torch.cuda.memory_stats()
    info = {
        'scenario': name,
        'allowed_bytes': int(allowed) if allowed else None,
        'conf': conf,
        'per_process_memory_fraction': fraction,
        'total_memory': total,
        'device': torch.cuda.get_device_name(0),
        'torch': torch.__version__,
        'cuda': torch.version.cuda,
        'ooms': ooms,
        'memory_stats': {k2: v for k2, v in stats.items() if not k2.startswith('requested_bytes') and 'large_pool' not in k2 and 'small_pool' not in k2},
    }
    with open(os.path.join(out, stem + '.json'), 'w') as fh:
        json.dump(info, fh, indent=1, sort_keys=True)


if __name__ == '__main__':
    if len(sys.argv) > 2:
        child(sys.argv[2], OUT)
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    failed = 0
    only = [n for n in os.environ.get('SCENARIOS', '').split(',') if n]  # e.g. SCENARIOS=basics,train
    for name, (conf, _) in SCENARIOS.items():
        if only and name not in only:
            continue
        env = dict(os.environ)
        env.pop('PYTORCH_CUDA_ALLOC_CONF', None)
        conf = os.environ.get('ALLOC_CONF', conf)  # ALLOC_CONF=... runs the scenarios under another setting
        if conf:
            env['PYTORCH_CUDA_ALLOC_CONF'] = conf
        # ALLOWED_BYTES=N runs the scenarios under a memory fraction that allows exactly N bytes
        # (written as NAME@N.pickle and NAME@N.json).
        r = subprocess.run([sys.executable, __file__, OUT, name], env=env, capture_output=True, text=True, timeout=240)
        ok = r.returncode == 0
        failed += not ok
        print(name, 'ok' if ok else 'FAILED rc=%d' % r.returncode, flush=True)
        if not ok:
            print(r.stdout[-3000:], r.stderr[-3000:], flush=True)
        elif r.stderr.strip():
            print('  stderr:', r.stderr[-800:], flush=True)
    sys.exit(1 if failed else 0)
