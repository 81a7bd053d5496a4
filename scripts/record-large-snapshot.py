"""
Records a large real PyTorch snapshot for the snapshot-reading benchmark (bench/snapshot-load.mjs
--file): AdamW training steps of GPT-2 small (124M parameters, random weights, `transformers`) under
bf16 autocast, batch 8 x 512 tokens, recorded with C++ and Python frames (stacks='all', PyTorch's
default). 160 steps make a snapshot of about 128 MB (459,005 events).

    OUT=dir python3 scripts/record-large-snapshot.py [STEPS] [STACKS]   # needs a CUDA GPU and PyTorch

Writes OUT/gpt2-STACKS-STEPS.pickle.xz.partNN (xz, in pieces of 15 MiB; about 3.8 MB in all for 160
steps: `cat *.part* | xz -d > gpt2.pickle`) and OUT/gpt2-STACKS-STEPS.json (sizes, timings and
torch.cuda.memory_stats() at the dump).
"""
import json, lzma, os, subprocess, sys, time

OUT = os.environ.get('OUT', 'out')


def child(name, steps, stacks):
    import torch
    t0 = time.time()
    try:
        from transformers import GPT2Config, GPT2LMHeadModel
        model = GPT2LMHeadModel(GPT2Config(n_layer=12, n_embd=768, n_head=12, n_positions=512)).cuda()
        kind = 'gpt2-124M'
    except Exception as e:  # torch-only fallback
        print('transformers unavailable:', e, flush=True)
        layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, batch_first=True)
        model = torch.nn.Sequential(torch.nn.Embedding(50257, 768), torch.nn.TransformerEncoder(layer, 12),
                                    torch.nn.Linear(768, 50257)).cuda()
        kind = 'encoder-12'
    print(name, 'model built', round(time.time() - t0, 1), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    torch.cuda.memory._record_memory_history(enabled='all', context='all', stacks=stacks, max_entries=2000000)
    g = torch.Generator(device='cuda').manual_seed(0)
    for step in range(steps):
        x = torch.randint(0, 50257, (8, 512), device='cuda', generator=g)
        with torch.autocast('cuda', dtype=torch.bfloat16):
            if kind == 'gpt2-124M':
                loss = model(input_ids=x, labels=x).loss
            else:
                logits = model(x)
                loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.size(-1)), x.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    t1 = time.time()
    path = os.path.join(OUT, name + '.pickle')
    torch.cuda.memory._dump_snapshot(path)
    t2 = time.time()
    stats = torch.cuda.memory_stats()
    size = os.path.getsize(path)
    data = open(path, 'rb').read()
    os.remove(path)
    xz = lzma.compress(data, preset=1)
    piece = 15 << 20
    parts = 0
    for i in range(0, len(xz), piece):
        open(os.path.join(OUT, f'{name}.pickle.xz.part{parts:02d}'), 'wb').write(xz[i:i + piece])
        parts += 1
    meta = {'model': kind, 'steps': steps, 'stacks': stacks, 'torch': torch.__version__,
            'device': torch.cuda.get_device_name(0), 'total_memory': torch.cuda.get_device_properties(0).total_memory,
            'pickle_bytes': size, 'xz_bytes': len(xz), 'parts': parts, 'train_s': round(t1 - t0, 1),
            'dump_s': round(t2 - t1, 1), 'memory_stats': stats}
    json.dump(meta, open(os.path.join(OUT, name + '.json'), 'w'), indent=1, sort_keys=True)
    print(name, json.dumps({k: v for k, v in meta.items() if k != 'memory_stats'}), flush=True)


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--child':
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 160
    stacks = sys.argv[2] if len(sys.argv) > 2 else 'all'
    name = f'gpt2-{stacks}-{steps}'
    t = time.time()
    r = subprocess.run([sys.executable, __file__, '--child', name, str(steps), stacks], timeout=600)
    print(name, 'exit', r.returncode, round(time.time() - t, 1), 's', flush=True)
    sys.exit(r.returncode)
