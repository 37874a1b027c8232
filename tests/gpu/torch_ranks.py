"""A two-rank PyTorch job for `kgantt record -- torchrun ...`: each rank runs matmuls on
its GPU (both on GPU 0 when there is only one) and, with two or more GPUs, all-reduces
over NCCL. Prints `rank R done` on success."""
import os

import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
ngpu = torch.cuda.device_count()
dev = torch.device("cuda", rank % ngpu)
torch.cuda.set_device(dev)
a = torch.randn(2048, 2048, device=dev)
for _ in range(20):
    a = torch.tanh(a @ a * 1e-3)
if ngpu >= world:
    dist.init_process_group("nccl", device_id=dev)
    t = torch.ones(1 << 20, device=dev) * (rank + 1)
    for _ in range(5):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    dist.destroy_process_group()
torch.cuda.synchronize()
print("rank", rank, "done", flush=True)
