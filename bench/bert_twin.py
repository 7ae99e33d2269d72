#!/usr/bin/env python3
"""The PyTorch eager twin of ember_bench_text's rows, for any device PyTorch sees: the same
BERT as the LibTorch twin (bench/torch/libtorch_bert_bench.cpp: transformers' BertModel
structure, hidden 128, 2 layers, 4 heads, intermediate 512, exact GELU, SDPA over a bool key
mask, dropout 0.1, the pooler; a Linear(128, 2) head on the [CLS] state; AdamW lr 5e-4,
clipping at 1.0), on the same batches (the file ember_bench_text writes when
EMBER_BENCH_TEXT_BATCHES names it), computed padded as transformers computes them.
Plain PyTorch, no transformers: a GPU machine may have PyTorch and nothing else;
tests/gpu/run.sh runs it beside Ember's cuda:0 rows.

    EMBER_BENCH_TEXT_BATCHES=/tmp/b.bin build/bench/ember_bench_text --benchmark_filter=NONE
    python3 bench/bert_twin.py --batches /tmp/b.bin bert_train_step/cuda:0/32/threads:1 \\
        bert_infer/cuda:0/1/48/threads:1 bert_infer/cpu/1/128/threads:1 ...

Prints one JSON line {"name", "seconds", "torch"} per row (compare_peers.py's form); a row
whose device PyTorch does not have is skipped with a line on stderr. TF32 is off on the GPU,
as in Ember's cuBLAS calls. With --ember-json (ember_bench_text's --benchmark_out file) it
then prints a table of Ember's rows against these, Ember's time from its items_per_second
(timed_loop's wall clock, which waits for the device; Google Benchmark's real_time does not).
"""
import argparse
import array
import json
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_models import timeit  # noqa: E402

HIDDEN, LAYERS, HEADS, INTERMEDIATE, MAX_LENGTH = 128, 2, 4, 512, 128
DROPOUT, EPS, BATCH = 0.1, 1e-12, 32


def read_batches(path):
    """bench/text/review_batches.h's file: little-endian int64s vocab_size, count, then per
    batch B, L, input_ids[B*L], attention_mask[B*L], token_type_ids[B*L], labels[B]."""
    values = array.array("q")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    at = 0

    def take(n):
        nonlocal at
        if at + n > len(values):
            raise ValueError(f"{path}: ends inside a batch")
        out = values[at:at + n]
        at += n
        return out

    vocab, count = take(2)
    batches = []
    for _ in range(count):
        b, length = take(2)
        fields = [torch.tensor(take(b * length), dtype=torch.long).view(b, length) for _ in range(3)]
        batches.append(dict(zip(("input_ids", "attention_mask", "token_type_ids"), fields),
                            labels=torch.tensor(take(b), dtype=torch.long)))
    return vocab, batches


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value, self.attn_out = (torch.nn.Linear(HIDDEN, HIDDEN) for _ in range(4))
        self.intermediate = torch.nn.Linear(HIDDEN, INTERMEDIATE)
        self.out = torch.nn.Linear(INTERMEDIATE, HIDDEN)
        self.ln1, self.ln2 = torch.nn.LayerNorm(HIDDEN, eps=EPS), torch.nn.LayerNorm(HIDDEN, eps=EPS)
        self.drop = torch.nn.Dropout(DROPOUT)

    def forward(self, x, keys):
        b, length = x.shape[:2]

        def heads(t):
            return t.view(b, length, HEADS, HIDDEN // HEADS).transpose(1, 2)
        a = F.scaled_dot_product_attention(heads(self.query(x)), heads(self.key(x)), heads(self.value(x)),
                                           attn_mask=keys, dropout_p=DROPOUT if self.training else 0.0)
        a = self.ln1(self.drop(self.attn_out(a.transpose(1, 2).reshape(b, length, HIDDEN))) + x)
        return self.ln2(self.drop(self.out(F.gelu(self.intermediate(a)))) + a)


class Bert(torch.nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.words = torch.nn.Embedding(vocab, HIDDEN, padding_idx=0)
        self.positions = torch.nn.Embedding(MAX_LENGTH, HIDDEN)
        self.types = torch.nn.Embedding(2, HIDDEN)
        self.ln = torch.nn.LayerNorm(HIDDEN, eps=EPS)
        self.drop = torch.nn.Dropout(DROPOUT)
        self.layers = torch.nn.ModuleList(Layer() for _ in range(LAYERS))
        self.pooler = torch.nn.Linear(HIDDEN, HIDDEN)
        self.classifier = torch.nn.Linear(HIDDEN, 2)

    def encode(self, ids, mask, type_ids):
        """last_hidden_state and pooler_output, as BertModel."""
        b, length = ids.shape
        positions = torch.arange(length, device=ids.device)
        h = self.drop(self.ln(self.words(ids) + self.types(type_ids) + self.positions(positions)))
        keys = mask.ne(0).view(b, 1, 1, length) if mask is not None else None
        for layer in self.layers:
            h = layer(h, keys)
        return h, torch.tanh(self.pooler(h[:, 0]))

    def logits(self, ids, mask, type_ids):
        return self.classifier(self.drop(self.encode(ids, mask, type_ids)[0][:, 0]))


def train_step(device, vocab, batches):
    torch.manual_seed(0)
    model = Bert(vocab).to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    inputs = [{k: v.to(device) for k, v in b.items()} for b in batches]
    step = [0]

    def run():
        b = inputs[step[0] % len(inputs)]
        step[0] += 1
        opt.zero_grad()
        F.cross_entropy(model.logits(b["input_ids"], b["attention_mask"], b["token_type_ids"]),
                        b["labels"]).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
    return run


def first_review(batches, length):
    """The ids of the first training review at least `length` tokens long, cut to `length`."""
    for b in batches:
        lengths = b["attention_mask"].ne(0).sum(1)
        for i in range(b["input_ids"].shape[0]):
            if lengths[i] >= length:
                return b["input_ids"][i, :length].view(1, length)
    raise ValueError(f"no review of {length} tokens in the batches")


def infer(device, vocab, batches, length):
    torch.manual_seed(0)
    model = Bert(vocab).to(device).eval()
    x = first_review(batches, length).to(device)
    types = torch.zeros_like(x)

    def run():
        with torch.no_grad():
            model.encode(x, None, types)
    return run


def workload(row, vocab, batches):
    """The callable for a row name, with PyTorch's thread count set from it; None when the
    row's device is absent."""
    parts = row.split("/")
    m = re.search(r"threads:(\d+)", row)
    torch.set_num_threads(int(m.group(1)) if m else 1)
    device = parts[1]
    if device.startswith("cuda") and not torch.cuda.is_available():
        return None
    if parts[0] == "bert_train_step" and parts[2] == str(BATCH):
        return train_step(device, vocab, batches)
    if parts[0] == "bert_infer" and parts[2] == "1":
        return infer(device, vocab, batches, int(parts[3]))
    raise ValueError(f"unknown row {row}")


def ember_seconds(path):
    """{row: seconds per call} from ember_bench_text's JSON output."""
    with open(path) as f:
        rows = json.load(f)["benchmarks"]
    out = {}
    for r in rows:
        rate = r.get("items_per_second")
        if rate:
            parts = r["run_name"].split("/")
            out[r["run_name"]] = (BATCH if parts[0].startswith("bert_train_step") else 1) / rate
    return out


def fmt(row, seconds):
    if seconds is None:
        return "-"
    if row.startswith("bert_train_step"):
        return f"{BATCH / seconds:,.0f} examples/s"
    return f"{seconds * 1e6:,.0f} us"


def table(ember, torch_rows):
    lines = ["| row | Ember | PyTorch eager | PyTorch time / Ember time |", "| --- | ---: | ---: | ---: |"]
    for row, t in torch_rows.items():
        e = ember.get(row)
        ratio = f"{t / e:.2f}x" if e else "-"
        lines.append(f"| `{row}` | {fmt(row, e)} | {fmt(row, t)} | {ratio} |")
        padded = row.replace("bert_train_step/", "bert_train_step_padded/")
        if padded != row and padded in ember:
            e = ember[padded]
            lines.append(f"| `{padded}` (Ember computing the padding) | {fmt(row, e)} | {fmt(row, t)} | {t / e:.2f}x |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default=os.environ.get("EMBER_BENCH_TEXT_BATCHES"),
                    help="the file ember_bench_text wrote (default: $EMBER_BENCH_TEXT_BATCHES)")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds of timed batches per row")
    ap.add_argument("--ember-json", help="ember_bench_text's JSON output: print a table against it")
    ap.add_argument("rows", nargs="+")
    args = ap.parse_args()
    if not args.batches:
        ap.error("no --batches and no EMBER_BENCH_TEXT_BATCHES")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    vocab, batches = read_batches(args.batches)
    timed = {}
    for row in args.rows:
        fn = workload(row, vocab, batches)
        if fn is None:
            print(f"bert_twin.py: {row}: no such device here, skipped", file=sys.stderr)
            continue
        timed[row] = timeit(fn, row.split("/")[1], min_time=args.min_time)
        print(json.dumps({"name": row, "seconds": timed[row], "torch": torch.__version__}), flush=True)
    if args.ember_json:
        print(table(ember_seconds(args.ember_json), timed))


if __name__ == "__main__":
    main()
