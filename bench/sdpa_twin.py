#!/usr/bin/env python3
"""PyTorch's scaled_dot_product_attention as ember_bench_sdpa runs it (forward + backward, causal,
batch 1, 4 heads, head size 64, float32, one thread), in one process per (backend, L) so that
the peak RSS is that row's: the MATH backend (scores materialised) and the fastest CPU one
(FLASH_ATTENTION, PyTorch's blocked CPU kernel). Prints one JSON row each: median seconds of
--repetitions runs and the process's peak RSS (MiB) and its RSS after importing torch.

    .venv/bin/python bench/sdpa_twin.py [--lengths 256 1024 4096] [--repetitions 3]
"""
import argparse
import json
import resource
import subprocess
import sys


def one(backend, length, repetitions):
    import statistics
    import time
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    torch.set_num_threads(1)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 4, length, 64, requires_grad=True) for _ in range(3))
    grad = torch.randn(1, 4, length, 64)
    times = []
    with sdpa_kernel(getattr(SDPBackend, backend)):
        for _ in range(repetitions + 1):
            t = time.perf_counter()
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            out.backward(grad)
            times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"name": f"sdpa_causal_fwdbwd/cpu/{length}/threads:1", "peer": f"PyTorch {torch.__version__} {backend}",
                      "seconds": statistics.median(times[1:]), "peak_rss_mib": peak, "rss_after_import_mib": base}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--one", nargs=2, metavar=("BACKEND", "L"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]), args.repetitions)
        return
    for backend in ("MATH", "FLASH_ATTENTION"):
        for length in args.lengths:
            subprocess.run([sys.executable, __file__, "--one", backend, str(length), "--repetitions",
                            str(args.repetitions)], check=True)


if __name__ == "__main__":
    main()
