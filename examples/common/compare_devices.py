#!/usr/bin/env python3
"""Trains an example for one epoch on the CPU and on each CUDA device named, with the same
seed and a log interval of 1, and checks that every device follows the CPU: the first STEPS
per-step losses agree to 1e-4 relative and the epoch's test accuracy is within 1 point.

    compare_devices.py [--data DIR] [--steps N] [--arg ARG ...] BINARY OUT_DIR cuda:0 [cuda:1 ...]

BINARY is an example that takes --device, --epochs, --log-interval, --seed and --metrics
(mnist, text_classifier); --data names its data (default: the bundled one); each --arg is
passed on (text_classifier: --arg=--limit --arg=256 for a short run); --steps defaults to 20.

On the emulated CUDA build (EMBER_CUDA=EMULATE) this runs the whole CUDA backend, cuBLAS and
cuDNN models included, through a training epoch; on a GPU it checks the real libraries.
"""
import csv
import os
import subprocess
import sys

RELATIVE = 1e-4
ACCURACY_POINTS = 1.0


def train(binary, device, out_dir, data, extra, steps):
    name = os.path.basename(binary)
    metrics = os.path.join(out_dir, f"{name}_{device.replace(':', '_')}.csv")
    command = [binary, "--device", device, "--epochs", "1", "--log-interval", "1", "--seed", "1", "--metrics", metrics]
    if data:
        command += ["--data", data]
    subprocess.run(command + extra, check=True, stdout=subprocess.DEVNULL)
    losses, accuracy = [], None
    with open(metrics, newline="") as f:
        for row in csv.DictReader(f):
            if row["loss"]:
                losses.append(float(row["loss"]))
            if row["test_accuracy"]:
                accuracy = float(row["test_accuracy"])
    if len(losses) < steps or accuracy is None:
        sys.exit(f"{device}: {metrics} holds {len(losses)} losses and accuracy {accuracy}")
    return losses, accuracy


def parse(args):
    data, steps, extra = None, 20, []
    while args and args[0].startswith("--"):
        flag, _, value = args[0].partition("=")
        if not value:
            if len(args) < 2:
                sys.exit(__doc__)
            value, args = args[1], args[1:]
        args = args[1:]
        if flag == "--data":
            data = value
        elif flag == "--steps":
            steps = int(value)
        elif flag == "--arg":
            extra.append(value)
        else:
            sys.exit(f"compare_devices.py: unknown option {flag}\n{__doc__}")
    if len(args) < 3:
        sys.exit(__doc__)
    return data, steps, extra, args[0], args[1], args[2:]


def main():
    data, steps, extra, binary, out_dir, devices = parse(sys.argv[1:])
    os.makedirs(out_dir, exist_ok=True)
    cpu_losses, cpu_accuracy = train(binary, "cpu", out_dir, data, extra, steps)
    print(f"cpu: first losses {cpu_losses[0]:.6f} .. {cpu_losses[steps - 1]:.6f}, accuracy {cpu_accuracy:.2f} %")
    failed = False
    for device in devices:
        losses, accuracy = train(binary, device, out_dir, data, extra, steps)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses[:steps], cpu_losses[:steps]))
        ok = worst <= RELATIVE and abs(accuracy - cpu_accuracy) <= ACCURACY_POINTS
        failed |= not ok
        print(f"{device}: first {steps} losses within {worst:.2e} relative of the cpu's (limit {RELATIVE:g}), "
              f"accuracy {accuracy:.2f} % ({accuracy - cpu_accuracy:+.2f} points, limit {ACCURACY_POINTS:g}): "
              f"{'ok' if ok else 'FAILED'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
