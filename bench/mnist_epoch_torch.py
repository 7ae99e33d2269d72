#!/usr/bin/env python3
"""The PyTorch side of the MNIST-epoch comparison: the tutorial CNN trained for one epoch on
the same IDX files with the same settings as `examples/mnist --epochs 1` (batch 64, SGD lr
0.01 momentum 0.5, Normalize(0.1307, 0.3081)), then tested. Run both under
`/usr/bin/time -v` to compare peak resident memory (bench/README.md):

    /usr/bin/time -v ./build/examples/mnist --epochs 1 --threads 1
    /usr/bin/time -v /usr/bin/python3 bench/mnist_epoch_torch.py --threads 1
"""
import argparse
import gzip
import os
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

from torch_models import TutorialCNN


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(root, split):
    def find(stem):
        for name in (stem, stem + ".gz"):
            if os.path.exists(os.path.join(root, name)):
                return os.path.join(root, name)
        raise SystemExit(f"{stem} not found in {root}")
    images = read_idx(find(f"{split}-images-idx3-ubyte"))
    labels = read_idx(find(f"{split}-labels-idx1-ubyte"))
    x = (torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1) - 0.1307) / 0.3081
    return x, torch.from_numpy(labels.astype(np.int64))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(here, "..", "examples", "data", "mnist-sample"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    x, y = load(args.data, "train")
    xt, yt = load(args.data, "t10k")
    model = TutorialCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    start = time.perf_counter()
    model.train()
    for data, target in loader:
        opt.zero_grad()
        F.cross_entropy(model(data), target).backward()
        opt.step()
    seconds = time.perf_counter() - start
    model.eval()
    with torch.no_grad():
        correct = sum(int((model(xt[i:i + 1000]).argmax(1) == yt[i:i + 1000]).sum()) for i in range(0, len(xt), 1000))
    print(f"PyTorch {torch.__version__}: epoch {seconds:.2f} s, {len(x) / seconds:.0f} images/s, "
          f"test accuracy {100.0 * correct / len(xt):.2f}%")


if __name__ == "__main__":
    main()
