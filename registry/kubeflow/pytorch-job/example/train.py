# kf's example for pytorch-job: a linear model fitted with DistributedDataParallel across
# every process of the PyTorchJob, on random data, in a few seconds; then it exits 0.
# Run it under torchrun (`python -m torch.distributed.run`): the training-operator gives
# each pod PET_NNODES, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT (and
# PET_NPROC_PER_NODE), torchrun's settings, and torchrun gives each process its RANK.
import os

import torch
import torch.distributed as dist

cuda = torch.cuda.is_available()
dist.init_process_group("nccl" if cuda else "gloo")
rank, world = dist.get_rank(), dist.get_world_size()
if cuda:
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    torch.cuda.set_device(device)
else:
    device = torch.device("cpu")

torch.manual_seed(rank)
true_w = torch.tensor([[1.0], [-2.0], [3.0], [0.5]], device=device)
x = torch.randn(256, 4, device=device)
y = x @ true_w
model = torch.nn.Linear(4, 1, bias=False).to(device)
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index] if cuda else None)
optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
for _ in range(200):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(ddp(x), y)
    loss.backward()
    optimizer.step()
error = (model.weight.detach().t() - true_w).abs().max().item()
print("rank %d of %d on %s: loss %.5f, max error %.4f" % (rank, world, device, loss.item(), error))
dist.destroy_process_group()
raise SystemExit(0 if error < 0.05 else 1)
