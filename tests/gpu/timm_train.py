"""A timm ResNet-18 trained on random images (random weights: no download), a few SGD steps
at batch 32 on 128-pixel images, the batch made on the host each step as a simple loader
would: a third-party training loop to record with kgantt.

    python3 timm_train.py [--steps N] [--batch B] [--size PX]

Prints one JSON line: steps, seconds, steps a second.
"""
import argparse
import json
import time

import timm
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=128)
    a = ap.parse_args()
    model = timm.create_model("resnet18", pretrained=False, num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    t0 = time.time()
    for _ in range(a.steps):
        x = torch.randn(a.batch, 3, a.size, a.size).pin_memory().cuda(non_blocking=True)
        y = torch.randint(0, 100, (a.batch,)).cuda(non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        loss.item()
    dt = time.time() - t0
    print(json.dumps({"steps": a.steps, "seconds": round(dt, 3), "steps_per_s": round(a.steps / dt, 2)}))


if __name__ == "__main__":
    main()
