"""The handwritten digits for dlc's training example, and PyTorch's time for the same step.

`python3 tools/bench/digits.py --out DIR` writes scikit-learn's digits (`load_digits`: 1,797
8x8 images, no download) split 80/20 with a fixed seed, images scaled to [0, 1]:
`x_train.npy` (f32 [n, 64]), `y_train.npy` (i64 [n]), `x_test.npy`, `y_test.npy`.

With `--torch mlp|cnn --batch B --epochs E` it also trains the network `tools/bench/src/training.rs`
defines, with the same initialisation scheme, loss and update (SGD with momentum, ONNX's
`Momentum` in standard mode: v = alpha*v + g, w = w - lr*v), in PyTorch eager on the CPU with
2 threads, and prints one JSON line: the median step time in ms (batch copy, forward, loss,
backward and update) and the test accuracy after the given epochs.
"""

import argparse
import json
import os
import sys
import time

import numpy as np


def write_digits(out):
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(0).permutation(len(y))
    cut = int(round(0.8 * len(y)))
    train, test = order[:cut], order[cut:]
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "x_train.npy"), x[train])
    np.save(os.path.join(out, "y_train.npy"), y[train])
    np.save(os.path.join(out, "x_test.npy"), x[test])
    np.save(os.path.join(out, "y_test.npy"), y[test])
    return x[train], y[train], x[test], y[test]


def torch_step_time(net, data, batch, epochs, lr, momentum):
    import torch

    torch.set_num_threads(2)
    torch.manual_seed(1)
    x_train, y_train, x_test, y_test = (torch.from_numpy(a) for a in data)
    if net == "mlp":
        model = torch.nn.Sequential(
            torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)
        )
        shape = (-1, 64)
    else:
        model = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Flatten(),
            torch.nn.Linear(128, 10),
        )
        shape = (-1, 1, 8, 8)
    for m in model.modules():
        if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)):
            torch.nn.init.xavier_uniform_(m.weight)
            torch.nn.init.zeros_(m.bias)
    # torch's SGD with momentum and dampening 0 is v = momentum*v + g, w = w - lr*v.
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    n = len(y_train)
    for _ in range(epochs):
        order = torch.randperm(n)
        for start in range(0, n - batch + 1, batch):
            t0 = time.perf_counter()
            idx = order[start:start + batch]
            xb, yb = x_train[idx].reshape(shape), y_train[idx]
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            times.append((time.perf_counter() - t0) * 1e3)
    with torch.no_grad():
        pred = model(x_test.reshape(shape)).argmax(1)
    accuracy = float((pred == y_test).float().mean())
    times.sort()
    return {"step_ms": times[len(times) // 2], "accuracy": accuracy, "steps": len(times),
            "torch": torch.__version__}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="directory for the .npy files")
    parser.add_argument("--torch", choices=["mlp", "cnn"], help="also time PyTorch eager")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    args = parser.parse_args()
    try:
        data = write_digits(args.out)
    except ImportError as e:
        sys.exit(f"digits.py: scikit-learn is needed for the digits ({e})")
    if args.torch:
        result = torch_step_time(args.torch, data, args.batch, args.epochs, args.lr,
                                 args.momentum)
        print(json.dumps(result))


if __name__ == "__main__":
    main()
