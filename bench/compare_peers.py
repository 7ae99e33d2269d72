#!/usr/bin/env python3
"""Ember against its peers on the training step, batch-1 inference and the untuned ResNet, in
one run: Ember (ember_bench_train), LibTorch (ember_bench_libtorch, the C++ peer) and any
Python PyTorch given with --python. With --suite text: the BERT text classifier's step and
batch-1 inference instead (ember_bench_text against ember_bench_libtorch's twin rows, on the
same corpus batches, which Ember writes to a temporary file the twin reads; no Python peer). The peers alternate, in a rotating order, for
--repetitions rounds; each cell is the median of the rounds. With --under-load the same is
repeated while one other busy process (`yes > /dev/null`) runs. The load average is printed
before and after each condition, and the goals of bench/README.md are checked at the end.

    python3 bench/compare_peers.py --build build [--python /usr/bin/python3 --python .venv/bin/python]
        [--repetitions 5] [--under-load] [--markdown table.md] [--suite cnn|text]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from ember_rows import run_ember

HERE = os.path.dirname(os.path.abspath(__file__))
CNN_ROWS = [f"{w}/cpu/{b}/threads:{t}" for t in (1, 2)
            for w, b in (("train_step", 64), ("infer", 1), ("infer", 64), ("resnet_train_step", 64))]
TEXT_ROWS = [f"{w}/threads:{t}" for t in (1, 2)
             for w in ("bert_train_step/cpu/32", "bert_train_step_padded/cpu/32", "bert_infer/cpu/1/128",
                       "bert_infer/cpu/1/48", "bert_infer_unpacked/cpu/1/128", "bert_infer_unpacked/cpu/1/48")]
ROWS = CNN_ROWS
FILTER = "^(" + "|".join(ROWS) + ")$"


def run_binary(path):
    # Rows in a random order each round, so that no row always follows the same other row.
    return {name: s for name, s, _ in run_ember(path, FILTER, 1, interleave=True)}


def run_python(python):
    out = subprocess.run([python, os.path.join(HERE, "torch_rows.py")] + ROWS, check=True, capture_output=True,
                         text=True, cwd=HERE).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["name"]: r["seconds"] for r in rows}, (rows[0]["torch"] if rows else "?")


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(peers_run, repetitions):
    """{peer: {row: median seconds}} over rounds in which the peers' order rotates."""
    peers = list(peers_run)
    samples = {p: {} for p in peers}
    for r in range(repetitions):
        order = peers[r % len(peers):] + peers[:r % len(peers)]
        for p in order:
            for row, s in peers_run[p]().items():
                samples[p].setdefault(row, []).append(s)
        print(f"  round {r + 1}/{repetitions} done (load {load()})", file=sys.stderr, flush=True)
    return {p: {row: statistics.median(v) for row, v in rows.items()} for p, rows in samples.items()}


def fmt(seconds, row):
    if seconds is None:
        return "-"
    if row.startswith(("infer/cpu/1/", "bert_infer")):
        return f"{seconds * 1e6:.1f} us"
    unit = "examples/s" if row.startswith("bert") else "img/s"
    return f"{int(row.split('/')[2]) / seconds:,.0f} {unit}"


def table(title, medians, peers, before, after):
    lines = [f"### {title}", "", f"Load average before: {before}; after: {after}.", "",
             "| row | " + " | ".join(peers) + " | LibTorch time / Ember time |",
             "| --- | " + " | ".join("---:" for _ in peers) + " | ---: |"]
    for row in ROWS:
        e, lt = medians["Ember"].get(row), medians.get("LibTorch", {}).get(row)
        ratio = f"{lt / e:.2f}x" if e and lt else "-"
        lines.append(f"| `{row}` | " + " | ".join(fmt(medians[p].get(row), row) for p in peers) + f" | {ratio} |")
    return "\n".join(lines)


def text_goals(idle, busy):
    """The text suite's goals on the CPU, as bench/README.md lists them (the SDPA, tokenizer and
    memory goals are measured by other benchmarks)."""
    e, lt = idle["Ember"], idle.get("LibTorch", {})

    def speedup(row):
        return lt[row] / e[row] if row in lt and row in e else float("nan")
    checks = [
        ("1. BERT step vs LibTorch (padded), 1 thread >= 2x", speedup("bert_train_step/cpu/32/threads:1"), 2.0),
        ("1. BERT step vs LibTorch (padded), 2 threads >= 2x", speedup("bert_train_step/cpu/32/threads:2"), 2.0),
        ("2. batch-1 inference at 128 vs LibTorch, 1 thread >= 1.2x", speedup("bert_infer/cpu/1/128/threads:1"), 1.2),
        ("2. batch-1 inference at 128 vs LibTorch, 2 threads >= 1.2x", speedup("bert_infer/cpu/1/128/threads:2"), 1.2),
        ("2. batch-1 inference at 48 vs LibTorch, 1 thread >= 1.5x", speedup("bert_infer/cpu/1/48/threads:1"), 1.5),
        ("2. batch-1 inference at 48 vs LibTorch, 2 threads >= 1.5x", speedup("bert_infer/cpu/1/48/threads:2"), 1.5),
    ]
    for length in (128, 48):
        row = f"bert_infer/cpu/1/{length}/threads:"
        checks.append((f"2. batch-1 at {length}, 1-thread time / 2-thread time >= 1", e[row + "1"] / e[row + "2"], 1.0))
    if busy:
        b = busy["Ember"]
        checks.append(("6. under load, Ember 2-thread step rate / 1-thread rate >= 0.9",
                       b["bert_train_step/cpu/32/threads:1"] / b["bert_train_step/cpu/32/threads:2"], 0.9))
    return checks


def goals(idle, busy):
    if ROWS is TEXT_ROWS:
        checks = text_goals(idle, busy)
        lines = ["| goal | measured | met |", "| --- | ---: | --- |"]
        for name, value, target in checks:
            lines.append(f"| {name} | {value:.2f} | {'yes' if value >= target else 'NO'} |")
        return "\n".join(lines)
    e, lt = idle["Ember"], idle.get("LibTorch", {})

    def speedup(row):
        return lt[row] / e[row] if row in lt and row in e else float("nan")
    checks = [
        ("1. train step vs LibTorch, 1 thread >= 2x", speedup("train_step/cpu/64/threads:1"), 2.0),
        ("1. train step vs LibTorch, 2 threads >= 2.5x", speedup("train_step/cpu/64/threads:2"), 2.5),
        ("2. batch-1 latency vs LibTorch, 1 thread >= 5x", speedup("infer/cpu/1/threads:1"), 5.0),
        ("2. batch-1 latency vs LibTorch, 2 threads >= 5x", speedup("infer/cpu/1/threads:2"), 5.0),
        ("2. batch-1 latency, 1-thread time / 2-thread time >= 1",
         e["infer/cpu/1/threads:1"] / e["infer/cpu/1/threads:2"], 1.0),
        ("3. ResNet step vs LibTorch, 1 thread >= 1.2x", speedup("resnet_train_step/cpu/64/threads:1"), 1.2),
        ("3. ResNet step vs LibTorch, 2 threads >= 1.2x", speedup("resnet_train_step/cpu/64/threads:2"), 1.2),
    ]
    if busy:
        b = busy["Ember"]
        checks.append(("4. under load, Ember 2-thread step rate / 1-thread rate >= 0.9",
                       b["train_step/cpu/64/threads:1"] / b["train_step/cpu/64/threads:2"], 0.9))
    lines = ["| goal | measured | met |", "| --- | ---: | --- |"]
    for name, value, target in checks:
        lines.append(f"| {name} | {value:.2f} | {'yes' if value >= target else 'NO'} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--python", action="append", default=[], help="a Python with torch (repeatable)")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--under-load", action="store_true", help="repeat with one `yes > /dev/null` running")
    ap.add_argument("--markdown", default="", help="also write the tables to this file")
    ap.add_argument("--suite", choices=("cnn", "text"), default="cnn")
    args = ap.parse_args()
    global ROWS, FILTER
    ember_binary = "ember_bench_train"
    if args.suite == "text":
        ROWS, ember_binary = TEXT_ROWS, "ember_bench_text"
        FILTER = "^(" + "|".join(ROWS) + ")$"
        # Ember writes the corpus batches on its first run; the LibTorch twin reads them.
        os.environ["EMBER_BENCH_TEXT_BATCHES"] = os.path.join(tempfile.mkdtemp(), "review_batches.bin")
        subprocess.run([os.path.join(args.build, "bench", ember_binary), "--benchmark_filter=^$"], check=True,
                       capture_output=True)
        if args.python:
            print("(--suite text has no Python peer: --python ignored)", file=sys.stderr)
            args.python = []
    peers_run = {"Ember": lambda: run_binary(os.path.join(args.build, "bench", ember_binary))}
    libtorch = os.path.join(args.build, "bench", "ember_bench_libtorch")
    if os.path.exists(libtorch):
        peers_run["LibTorch"] = lambda: run_binary(libtorch)
    else:
        print(f"(no LibTorch peer: {libtorch} not built; configure with -DEMBER_LIBTORCH_DIR=...)", file=sys.stderr)
    for py in args.python:
        _, version = run_python(py)
        peers_run[f"PyTorch {version.split('+')[0]} ({py})"] = (lambda py=py: run_python(py)[0])
    peers = list(peers_run)
    out = []
    before = load()
    idle = measure(peers_run, args.repetitions)
    out.append(table("Nothing else running", idle, peers, before, load()))
    busy = None
    if args.under_load:
        hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
        try:
            before = load()
            busy = measure(peers_run, args.repetitions)
            out.append(table("One other busy process (`yes > /dev/null`)", busy, peers, before, load()))
        finally:
            hog.kill()
    out.append("### Goals\n\n" + goals(idle, busy))
    text = "\n\n".join(out)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
