#!/usr/bin/env python3
"""Data-parallel mnist against one process: the same seed and global batch of 64 must reach
an accuracy within 2 points, and only rank 0 may print its accuracy line.

usage: compare_ranks.py MNIST_BINARY LAUNCHER... (e.g. mpiexec -np 2 --oversubscribe)"""
import re
import subprocess
import sys

ACCURACY = re.compile(r"Accuracy on test set: \d+ % \[(\d+)/(\d+)\]")


def accuracies(command):
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    return [100.0 * int(c) / int(t) for c, t in ACCURACY.findall(run.stdout)], run.stdout


def main():
    binary, launcher = sys.argv[1], sys.argv[2:]
    args = ["--epochs", "1", "--device", "cpu", "--seed", "3"]
    alone, _ = accuracies([binary] + args)
    together, out = accuracies(launcher + [binary] + args)
    if len(alone) != 1 or len(together) != 1:
        sys.exit(f"expected one accuracy line from each run, got {alone} and {together}:\n{out}")
    print(f"1 process: {alone[0]:.2f} %, {' '.join(launcher)}: {together[0]:.2f} %")
    if abs(alone[0] - together[0]) > 2.0:
        sys.exit("the data-parallel run is more than 2 points away from one process")


if __name__ == "__main__":
    main()
