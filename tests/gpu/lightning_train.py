"""A Lightning Trainer fitting a small MLP on random data from a DataLoader (no logger, no
checkpoints): the training loop of a third-party framework, to record with kgantt.

    python3 lightning_train.py [--steps N] [--batch B]

Prints one JSON line: steps, seconds, steps a second.
"""
import argparse
import json
import time

import torch

try:
    import lightning as L
except ImportError:  # the older package name
    import pytorch_lightning as L


class MLP(L.LightningModule):
    def __init__(self, dim):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim), torch.nn.GELU(),
                                       torch.nn.Linear(dim, 10))

    def training_step(self, batch, _):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("loss", loss, prog_bar=False)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--dim", type=int, default=512)
    a = ap.parse_args()
    torch.manual_seed(0)
    n = a.steps * a.batch
    data = torch.utils.data.TensorDataset(torch.randn(n, a.dim), torch.randint(0, 10, (n,)))
    loader = torch.utils.data.DataLoader(data, batch_size=a.batch, shuffle=True)
    trainer = L.Trainer(max_steps=a.steps, accelerator="gpu", devices=1, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False)
    t0 = time.perf_counter()
    trainer.fit(MLP(a.dim), loader)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(json.dumps({"steps": a.steps, "seconds": dt, "steps_per_s": a.steps / dt}))


if __name__ == "__main__":
    main()
