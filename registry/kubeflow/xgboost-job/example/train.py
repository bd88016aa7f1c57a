# kf's example for xgboost-job: gradient-boosted trees trained across the Master and the
# Workers with XGBoost's collective (all-reduce of histograms), on random data, in a few
# seconds; then it exits 0. The training-operator gives each replica MASTER_ADDR,
# MASTER_PORT, WORLD_SIZE and RANK (pkg/controller.v1/xgboost/xgboost.go); the Master
# (rank 0) also runs the tracker on MASTER_PORT, the port it serves as xgboostjob-port.
# Replicas with GPUs are given --device=cuda and train there (XGBoost 2.0 and later).
# Written for XGBoost 3.0 (ghcr.io/kubeflow/trainer/xgboost-runtime).
import argparse
import os

import numpy as np
import xgboost as xgb
from xgboost import collective
from xgboost.tracker import RabitTracker

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu", help="cpu, or cuda on a replica with GPUs")
parser.add_argument("--rounds", type=int, default=20)
args = parser.parse_args()

rank = int(os.environ.get("RANK", "0"))
world = int(os.environ.get("WORLD_SIZE", "1"))
addr = os.environ.get("MASTER_ADDR", "127.0.0.1")
port = int(os.environ.get("MASTER_PORT", "9999"))

tracker = None
if rank == 0:
    tracker = RabitTracker(host_ip="0.0.0.0", n_workers=world, port=port)
    tracker.start()

with collective.CommunicatorContext(dmlc_tracker_uri=addr, dmlc_tracker_port=port,
                                    dmlc_task_id=str(rank)):
    # Each replica holds its own shard: the label is a fixed function of the features.
    rng = np.random.default_rng(rank)
    x = rng.normal(size=(2000, 8))
    y = (x[:, 0] + 2 * x[:, 1] - x[:, 2] > 0).astype(np.float32)
    train = xgb.DMatrix(x, label=y)
    params = {"objective": "binary:logistic", "tree_method": "hist", "device": args.device,
              "max_depth": 4, "eta": 0.3}
    booster = xgb.train(params, train, num_boost_round=args.rounds)
    accuracy = float(np.mean((booster.predict(train) > 0.5) == y))
    print("rank %d of %d on %s: accuracy %.3f" % (collective.get_rank(), collective.get_world_size(),
                                                  args.device, accuracy))

if tracker is not None:
    tracker.wait_for()
raise SystemExit(0 if accuracy > 0.9 else 1)
