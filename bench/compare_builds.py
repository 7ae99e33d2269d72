#!/usr/bin/env python3
"""Runs the same benchmark rows from several Ember builds in one run, alternating the builds
round by round, and prints the median time of each row per build with its ratio to the
first build. It measures what a compiler flag or configuration costs:

    python3 bench/compare_builds.py --build build --build build-noworkaround \\
        --filter 'conv2d|matmul/|train_step/cpu/64' --rounds 5

A build is a build folder (its bench/ember_bench_ops and bench/ember_bench_train are run);
label it with NAME=FOLDER. Ratios > 1: that build is slower than the first.
"""
import argparse
import os
import statistics
import subprocess

from ember_rows import fmt_time, run_ember


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", action="append", required=True, help="FOLDER or NAME=FOLDER; the first is the baseline")
    ap.add_argument("--filter", default="")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    builds = [b.split("=", 1) if "=" in b else (b, b) for b in args.build]
    times, order = {}, []
    load_before = open("/proc/loadavg").read().split()[:3]
    for r in range(args.rounds):
        # Rotate which build goes first, so drift over the run does not favour one of them.
        for label, folder in builds[r % len(builds):] + builds[:r % len(builds)]:
            for exe in ("ember_bench_ops", "ember_bench_train"):
                path = os.path.join(folder, "bench", exe)
                if not os.path.exists(path):
                    continue
                for name, seconds, _ in run_ember(path, args.filter, 1):
                    if name not in order:
                        order.append(name)
                    times.setdefault((name, label), []).append(seconds)
    load_after = open("/proc/loadavg").read().split()[:3]
    labels = [label for label, _ in builds]
    print(f"load average before: {' '.join(load_before)}, after: {' '.join(load_after)}; "
          f"{args.rounds} rounds, medians")
    print("| row | " + " | ".join(labels) + " | " + " | ".join(f"{l} / {labels[0]}" for l in labels[1:]) + " |")
    print("| --- |" + " ---: |" * (2 * len(labels) - 1))
    for name in order:
        med = [statistics.median(times[(name, l)]) if (name, l) in times else None for l in labels]
        cells = [fmt_time(m).strip() if m else "-" for m in med]
        ratios = [f"{m / med[0]:.3f}" if m and med[0] else "-" for m in med[1:]]
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
