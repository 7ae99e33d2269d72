#!/usr/bin/env python3
"""Runs Ember's benchmark binaries and the same workloads in PyTorch, in one run on one
machine, and prints one table of times and Ember/PyTorch ratios.

    python3 bench/compare_torch.py [--build build] [--filter REGEX] [--repetitions 3] [--json out.json]

It installs nothing: PyTorch must be importable (Debian's python3-torch under
/usr/bin/python3, or a virtual environment with torch from PyPI). Rows are matched by name:
every Ember row whose name has a PyTorch counterpart below gets a ratio. A ratio < 1 means
Ember is faster.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from ember_rows import fmt_time, run_ember

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    sys.exit("PyTorch is not importable; see bench/README.md for how to get it")

from torch_models import model_workload, timeit


# The conv rows of ember_bench_ops: (N, C_in, C_out, H=W, k, padding).
CONV_LAYERS = {"mnist1": (64, 1, 10, 28, 5, 0), "mnist2": (64, 10, 20, 12, 5, 0), "resnet": (32, 64, 64, 56, 3, 1)}


def conv(device, layer, backward):
    n, cin, cout, hw, k, pad = CONV_LAYERS[layer]
    x = torch.randn(n, cin, hw, hw, device=device, requires_grad=backward)
    w = (0.1 * torch.randn(cout, cin, k, k, device=device)).requires_grad_(backward)
    b = torch.randn(cout, device=device, requires_grad=backward)
    if not backward:
        def fwd():
            with torch.no_grad():
                F.conv2d(x, w, b, padding=pad)
        return fwd
    g = torch.randn_like(F.conv2d(x, w, b, padding=pad))
    return lambda: torch.autograd.grad(F.conv2d(x, w, b, padding=pad), (x, w, b), g)


def workload(name):
    """The PyTorch callable for an Ember benchmark row, or None."""
    parts = name.split("/")
    dev = parts[1] if len(parts) > 1 else "cpu"
    threads = 1
    m = re.search(r"threads:(\d+)", name)
    if m:
        threads = int(m.group(1))
    if parts[0] in ("train_step", "infer", "resnet_train_step"):
        return model_workload(name)
    torch.set_num_threads(threads)
    if dev.startswith("cuda") and not torch.cuda.is_available():
        return None
    kind = parts[0]
    if kind == "matmul":
        n = int(parts[2])
        a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
        return lambda: a @ b
    if kind == "linear_mnist":
        x, w, b = torch.randn(64, 320, device=dev), torch.randn(10, 320, device=dev), torch.randn(10, device=dev)
        return lambda: F.linear(x, w, b)
    if kind == "dispatch_add_1elem":
        a, b = torch.ones(1, device=dev), torch.ones(1, device=dev)
        return lambda: a + b
    if kind == "add":
        n = int(parts[2])
        a, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
        return lambda: a + b
    if kind == "relu":
        a = torch.randn(int(parts[2]), device=dev)
        return lambda: F.relu(a)
    if kind == "sum":
        a = torch.randn(int(parts[2]), device=dev)
        return lambda: a.sum().item()
    if kind == "softmax_cross_entropy":
        n, c = int(parts[2]), int(parts[3])
        logits = torch.randn(n, c, device=dev, requires_grad=True)
        t = torch.randint(0, c, (n,), device=dev)

        def run():
            F.cross_entropy(logits, t).backward()
            logits.grad = None
        return run
    if kind == "max_pool2d":
        n, c, hw = int(parts[2]), int(parts[3]), int(parts[4])
        x = torch.randn(n, c, hw, hw, device=dev)
        return lambda: F.max_pool2d(x, 2)
    m = re.match(r"conv2d_(fwd|fwdbwd)_(mnist1|mnist2|resnet)$", kind)
    if m:
        return conv(dev, m.group(2), m.group(1) == "fwdbwd")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--filter", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--repetitions", type=int, default=3, help="runs of each Ember row; the median is kept")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results, paired = [], []
    for exe in ("ember_bench_ops", "ember_bench_train"):
        path = os.path.join(args.build, "bench", exe)
        if not os.path.exists(path):
            print(f"(skipping {exe}: not built at {path})")
            continue
        for name, seconds, paired_ratio in run_ember(path, args.filter, args.repetitions):
            if paired_ratio is not None:
                paired.append((name, paired_ratio))
                continue
            fn = workload(name)
            t_torch = timeit(fn, name.split("/")[1] if "/" in name else "cpu") if fn else None
            results.append({"name": name, "ember_s": seconds, "torch_s": t_torch})
    print(f"PyTorch {torch.__version__} (CPU threads set per row; CUDA available: {torch.cuda.is_available()})")
    print(f"{'benchmark':44s} {'Ember':>11s} {'PyTorch':>11s} {'Ember/PyTorch':>14s} {'Ember img/s':>12s} {'PyTorch img/s':>14s}")
    for r in results:
        e, t = r["ember_s"], r["torch_s"]
        ratio = f"{e / t:14.2f}" if t else f"{'-':>14s}"
        ts = fmt_time(t) if t else f"{'-':>11s}"
        rates = ""
        parts = r["name"].split("/")
        if parts[0] in ("train_step", "infer", "resnet_train_step"):
            batch = int(parts[2])
            rates = f" {batch / e:12.0f} " + (f"{batch / t:14.0f}" if t else f"{'-':>14s}")
        print(f"{r['name']:44s} {fmt_time(e)} {ts} {ratio}{rates}")
    # Ember's matmul against the GEMM it is built on, Eigen's, called directly on the same
    # operands, the two calls alternated in one loop (median of the per-pair ratios).
    for name, ratio in paired:
        print(f"{name}: Ember matmul / Eigen GEMM = {ratio:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
