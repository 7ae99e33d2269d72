#!/usr/bin/env python3
"""Trains the tutorial CNN for one epoch on the CPU and on each CUDA device named, with the
same seed and a log interval of 1, and checks that every device follows the CPU: the first
20 per-step losses agree to 1e-4 relative and the epoch's test accuracy is within 1 point.

    compare_devices.py [--data DIR] MNIST_BINARY OUT_DIR cuda:0 [cuda:1 ...]

--data names the MNIST folder (default: the binary's bundled sample).

On the emulated CUDA build (EMBER_CUDA=EMULATE) this runs the whole CUDA backend, cuBLAS and
cuDNN models included, through a training epoch; on a GPU it checks the real libraries.
"""
import csv
import os
import subprocess
import sys

STEPS = 20
RELATIVE = 1e-4
ACCURACY_POINTS = 1.0


def train(binary, device, out_dir, data):
    metrics = os.path.join(out_dir, f"mnist_{device.replace(':', '_')}.csv")
    command = [binary, "--device", device, "--epochs", "1", "--log-interval", "1", "--seed", "1", "--metrics", metrics]
    if data:
        command += ["--data", data]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    losses, accuracy = [], None
    with open(metrics, newline="") as f:
        for row in csv.DictReader(f):
            if row["loss"]:
                losses.append(float(row["loss"]))
            if row["test_accuracy"]:
                accuracy = float(row["test_accuracy"])
    if len(losses) < STEPS or accuracy is None:
        sys.exit(f"{device}: {metrics} holds {len(losses)} losses and accuracy {accuracy}")
    return losses, accuracy


def main():
    args, data = sys.argv[1:], None
    if args[:1] == ["--data"] and len(args) > 1:
        data, args = args[1], args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    binary, out_dir, devices = args[0], args[1], args[2:]
    os.makedirs(out_dir, exist_ok=True)
    cpu_losses, cpu_accuracy = train(binary, "cpu", out_dir, data)
    print(f"cpu: first losses {cpu_losses[0]:.6f} .. {cpu_losses[STEPS - 1]:.6f}, accuracy {cpu_accuracy:.2f} %")
    failed = False
    for device in devices:
        losses, accuracy = train(binary, device, out_dir, data)
        worst = max(abs(a - b) / abs(b) for a, b in zip(losses[:STEPS], cpu_losses[:STEPS]))
        ok = worst <= RELATIVE and abs(accuracy - cpu_accuracy) <= ACCURACY_POINTS
        failed |= not ok
        print(f"{device}: first {STEPS} losses within {worst:.2e} relative of the cpu's (limit {RELATIVE:g}), "
              f"accuracy {accuracy:.2f} % ({accuracy - cpu_accuracy:+.2f} points, limit {ACCURACY_POINTS:g}): "
              f"{'ok' if ok else 'FAILED'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
