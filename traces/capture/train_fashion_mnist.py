#!/usr/bin/python3
"""Train a small network on real Fashion-MNIST and capture one worker's gradients at
several points of training, for gcsim's shipped traces.

    /usr/bin/python3 traces/capture/train_fashion_mnist.py --model resnet20 --out traces/data/fmnist_resnet20

Models:
  resnet20  ResNet-20 for 28x28 inputs (He et al. 2016, CIFAR variant: 3 stages of 3 basic
            blocks, 16/32/64 channels, BatchNorm, global average pooling), 0.27 M parameters.
  lenet     Caffe's LeNet: conv 5x5x20, max-pool, conv 5x5x50, max-pool, fc 800->500, ReLU,
            fc 500->10; the fc 800->500 layer holds 400 k of its 431 k parameters.
  lenet300  LeNet-300-100 (LeCun et al. 1998): fc 784->300->100->10 with ReLU, 266 k
            parameters; more fully connected layers for the payload model's fc pool.

The data are the IDX files of Debian's dataset-fashion-mnist (/usr/share/datasets/
fashion-mnist). Gradients are those of the mini-batch loss (mean cross-entropy) after
backward() and before the optimizer step: exactly what a data-parallel worker would
compress and send. Weight decay is applied by the optimizer, not included in them.
A provenance.json next to the traces records how they were made and the test accuracy
reached at every captured step.
"""

import argparse
import gzip
import json
import os
import platform
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcsim_capture import GradientDumper  # noqa: E402

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """IDX format (LeCun): magic 0x0000 0x08 ndim, big-endian dims, then uint8 data."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError("%s: not an unsigned-byte IDX file" % path)
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(dims)):
        raise ValueError("%s: %d bytes of data for shape %s" % (path, data.size, dims))
    return data.reshape(dims)


def load_split(data_dir, prefix):
    x = read_idx(os.path.join(data_dir, "%s-images-idx3-ubyte.gz" % prefix))
    y = read_idx(os.path.join(data_dir, "%s-labels-idx1-ubyte.gz" % prefix))
    x = torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)
    return x, torch.from_numpy(y.astype(np.int64))


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.shortcut is None else self.shortcut(x)))


class ResNet20(nn.Module):
    def __init__(self, blocks=3, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        layers, cin = [], 16
        for stage, cout in enumerate((16, 32, 64)):
            for b in range(blocks):
                stride = 2 if (stage > 0 and b == 0) else 1
                layers.append(BasicBlock(cin, cout, stride))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class LeNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5)
        self.conv2 = nn.Conv2d(20, 50, 5)
        self.fc1 = nn.Linear(800, 500)
        self.fc2 = nn.Linear(500, classes)

    def forward(self, x):
        x = F.max_pool2d(self.conv1(x), 2)
        x = F.max_pool2d(self.conv2(x), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


class LeNet300(nn.Module):
    """LeCun et al. 1998's LeNet-300-100: a multilayer perceptron 784-300-100-10, ReLU."""

    def __init__(self, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(784, 300)
        self.fc2 = nn.Linear(300, 100)
        self.fc3 = nn.Linear(100, classes)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


MODELS = {
    # name: (constructor, lr, momentum, weight decay)
    "resnet20": (ResNet20, 0.1, 0.9, 5e-4),
    "lenet": (LeNet, 0.05, 0.9, 5e-4),
    "lenet300": (LeNet300, 0.05, 0.9, 5e-4),
}


def evaluate(model, x, y, batch=100):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, x.shape[0], batch):
            correct += (model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum().item()
    model.train()
    return correct / x.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", choices=sorted(MODELS), required=True)
    ap.add_argument("--out", required=True, help="output directory for the trace series")
    ap.add_argument("--steps", type=int, default=900, help="training steps (mini-batches)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capture", default="0,10,50,200,500,899",
                    help="comma-separated steps whose gradients are dumped")
    ap.add_argument("--dtype", default="F32", choices=("F32", "F16", "BF16"))
    ap.add_argument("--data", default=DATA_DIR)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    x_train, y_train = load_split(args.data, "train")
    x_test, y_test = load_split(args.data, "t10k")
    mean, std = x_train.mean().item(), x_train.std().item()
    x_train = (x_train - mean) / std
    x_test = (x_test - mean) / std

    ctor, lr0, momentum, wd = MODELS[args.model]
    model = ctor()
    opt = torch.optim.SGD(model.parameters(), lr=lr0, momentum=momentum, weight_decay=wd)
    # Cosine decay to zero over the run: converges within the short budget.
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + np.cos(np.pi * min(s, args.steps) / args.steps)))
    capture = sorted(set(int(s) for s in args.capture.split(",")))
    if capture[-1] >= args.steps:
        sys.exit("capture step %d is not below --steps %d" % (capture[-1], args.steps))
    os.makedirs(args.out, exist_ok=True)
    for name in os.listdir(args.out):  # a regenerated series replaces the old one
        if name.endswith(".safetensors"):
            os.unlink(os.path.join(args.out, name))
    dumper = GradientDumper(args.out, args.model, steps=capture, rank=0, dtype=args.dtype)

    gen = torch.Generator().manual_seed(args.seed)
    perm, pos = torch.randperm(x_train.shape[0], generator=gen), 0
    points, t0 = [], time.time()
    for step in range(args.steps):
        if pos + args.batch > perm.numel():
            perm, pos = torch.randperm(x_train.shape[0], generator=gen), 0
        idx = perm[pos:pos + args.batch]
        pos += args.batch
        opt.zero_grad()
        loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
        loss.backward()
        lr = opt.param_groups[0]["lr"]
        path = dumper.maybe_dump(model, step, loss=loss.item(), lr=lr, batch=args.batch,
                                 extra={"dataset": "fashion-mnist", "seed": args.seed})
        opt.step()
        sched.step()
        if path:
            # The first 2000 test images keep intermediate evaluations cheap on a CPU.
            acc = evaluate(model, x_test[:2000], y_test[:2000])
            points.append({"step": step, "file": os.path.basename(path), "loss": loss.item(),
                           "lr": lr, "test_accuracy_2000_after_step": acc})
            print("%s step %d loss %.4f lr %.4g test accuracy (2000 images) %.4f (%.0f s)"
                  % (args.model, step, loss.item(), lr, acc, time.time() - t0), file=sys.stderr)
    final_acc = evaluate(model, x_test, y_test)
    provenance = {
        "script": "traces/capture/train_fashion_mnist.py",
        "command": "/usr/bin/python3 traces/capture/train_fashion_mnist.py " + " ".join(sys.argv[1:]),
        "model": args.model, "parameters": sum(p.numel() for p in model.parameters()),
        "dataset": "Fashion-MNIST, Debian package dataset-fashion-mnist (%s), 60000 train / "
                   "10000 test images" % args.data,
        "seed": args.seed, "steps": args.steps, "batch": args.batch,
        "optimizer": "SGD lr %g momentum %g weight_decay %g, cosine decay over the run"
                     % (lr0, momentum, wd),
        "gradient": "mean cross-entropy of one worker's mini-batch, after backward, before "
                    "the optimizer step (no weight decay, no momentum)",
        "dtype": args.dtype, "captured": points,
        "final_test_accuracy": final_acc, "final_test_images": int(x_test.shape[0]),
        "train_seconds": round(time.time() - t0, 1),
        "torch": torch.__version__, "python": platform.python_version(),
    }
    with open(os.path.join(args.out, "provenance.json"), "w") as f:
        json.dump(provenance, f, indent=2)
        f.write("\n")
    print("%s: final test accuracy %.4f" % (args.model, final_acc), file=sys.stderr)


if __name__ == "__main__":
    main()
