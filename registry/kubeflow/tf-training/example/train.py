# kf's example for tf-job: a linear model fitted with synchronous data-parallel SGD
# (MultiWorkerMirroredStrategy: all-reduce across the chief and workers) on random data,
# in a few seconds; then it exits 0. The training-operator gives each replica TF_CONFIG,
# which the strategy reads. Parameter-server jobs (numPs > 0) need a training program
# written for ParameterServerStrategy: this one says so and exits 1.
import json
import os

import tensorflow as tf

config = json.loads(os.environ.get("TF_CONFIG", "{}"))
task = config.get("task", {})
if "ps" in config.get("cluster", {}):
    raise SystemExit("kf's tf-job example trains with all-reduce: set numPs to 0, or give a command "
                     "that runs your ParameterServerStrategy program")
if task.get("type") == "evaluator":
    print("evaluator: nothing to evaluate in the example")
    raise SystemExit(0)

strategy = tf.distribute.MultiWorkerMirroredStrategy()
true_w = tf.constant([[1.0], [-2.0], [3.0], [0.5]])
with strategy.scope():
    # MEAN: each replica's update is averaged across all of them.
    w = tf.Variable(tf.zeros([4, 1]), aggregation=tf.VariableAggregation.MEAN)


@tf.function
def step(x, y):
    def replica_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    return strategy.reduce("MEAN", strategy.run(replica_step, args=(x, y)), axis=None)


tf.random.set_seed(task.get("index", 0))
x = tf.random.normal([256, 4])
y = tf.matmul(x, true_w)
for _ in range(200):
    loss = step(x, y)
error = float(tf.reduce_max(tf.abs(w - true_w)))
print("%s %s of %d replicas: loss %.5f, max error %.4f"
      % (task.get("type", "worker"), task.get("index", 0), strategy.num_replicas_in_sync, float(loss), error))
raise SystemExit(0 if error < 0.05 else 1)
