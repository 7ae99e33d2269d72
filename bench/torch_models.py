"""The PyTorch side of Ember's benchmarks: the same networks as nn::models (TutorialNet,
SmallResNet), the same training step and inference pass, and a median timer. Shared by
compare_torch.py and torch_rows.py; runs under any PyTorch (Debian's 1.13 or PyPI's)."""
import re
import statistics
import time

import torch
import torch.nn.functional as F


def timeit(fn, device="cpu", min_time=0.5, warmup=3):
    """Median seconds per call over repeated batches of calls."""
    def sync():
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    for _ in range(warmup):
        fn()
    sync()
    # Calibrate a batch that takes ~50 ms, then take the median of batches for min_time.
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        dt = time.perf_counter() - t0
        if dt > 0.05 or n > 1 << 20:
            break
        n *= 2
    samples = []
    t_end = time.perf_counter() + min_time
    while time.perf_counter() < t_end or len(samples) < 5:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


class TutorialCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 10, 5)
        self.conv2 = torch.nn.Conv2d(10, 20, 5)
        self.fc = torch.nn.Linear(320, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        return self.fc(x.flatten(1))


def conv3x3(cin, cout, stride):
    return torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)


class ResidualBlock(torch.nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = conv3x3(cin, cout, stride), torch.nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = conv3x3(cout, cout, 1), torch.nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                torch.nn.BatchNorm2d(cout))

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = self.bn2(self.conv2(h))
        return F.relu(h + (self.shortcut(x) if self.shortcut is not None else x))


class SmallResNet(torch.nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem, self.stem_bn = conv3x3(3, 16, 1), torch.nn.BatchNorm2d(16)
        self.block1 = ResidualBlock(16, 16, 1)
        self.block2 = ResidualBlock(16, 32, 2)
        self.block3 = ResidualBlock(32, 64, 2)
        self.fc = torch.nn.Linear(64, classes)

    def forward(self, x):
        h = F.relu(self.stem_bn(self.stem(x)))
        h = self.block3(self.block2(self.block1(h)))
        return self.fc(h.mean((2, 3)))


def train_step(device, batch, model_class=TutorialCNN, image=(1, 28, 28)):
    model = model_class().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    x = torch.randn(batch, *image, device=device)
    y = torch.randint(0, 10, (batch,), device=device)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return step


def infer(device, batch):
    model = TutorialCNN().to(device).eval()
    x = torch.randn(batch, 1, 28, 28, device=device)

    def run():
        with torch.no_grad():
            model(x)
    return run


def model_workload(name):
    """The callable for a train/infer row name (train_step/<dev>/<batch>/threads:<n>, infer/...,
    resnet_train_step/...), with PyTorch's thread count set from the name; None otherwise."""
    parts = name.split("/")
    if len(parts) < 3 or parts[0] not in ("train_step", "infer", "resnet_train_step"):
        return None
    m = re.search(r"threads:(\d+)", name)
    torch.set_num_threads(int(m.group(1)) if m else 1)
    dev, batch = parts[1], int(parts[2])
    if dev.startswith("cuda") and not torch.cuda.is_available():
        return None
    if parts[0] == "train_step":
        return train_step(dev, batch)
    if parts[0] == "infer":
        return infer(dev, batch)
    return train_step(dev, batch, SmallResNet, (3, 32, 32))
