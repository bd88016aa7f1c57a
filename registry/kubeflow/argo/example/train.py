# kf's example for argo-workflow's train step: a linear model fitted on random data in a
# few seconds, exported to $MODEL_DIR/<version> as a SavedModel that TensorFlow Serving
# loads (the serve step's InferenceService, KServe's tensorflow runtime, reads the
# numbered version folders under its storageUri). The next version is one above the
# highest already there, so each run of the Workflow serves its own model.
# The exported model holds its weights as constants: a SavedModel with variables, as
# TensorFlow 2.13 and later write it, needs an op (DisableCopyOnRead) that older
# TensorFlow Serving builds lack.
import os

import tensorflow as tf

model_dir = os.environ["MODEL_DIR"].rstrip("/")
true_w = tf.constant([[1.0], [-2.0], [3.0], [0.5]])
tf.random.set_seed(0)
x = tf.random.normal([512, 4])
y = tf.matmul(x, true_w) + 0.25
w = tf.Variable(tf.zeros([4, 1]))
b = tf.Variable(0.0)
for _ in range(300):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * dw)
    b.assign_sub(0.1 * db)


class Linear(tf.Module):
    def __init__(self, w, b):
        super().__init__()
        self.w = tf.constant(w)
        self.b = tf.constant(b)

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def serve(self, x):
        return {"y": tf.matmul(x, self.w) + self.b}


tf.io.gfile.makedirs(model_dir)
versions = [int(v.rstrip("/")) for v in tf.io.gfile.listdir(model_dir) if v.rstrip("/").isdigit()]
path = "%s/%d" % (model_dir, max(versions, default=0) + 1)
model = Linear(w.numpy(), b.numpy())
tf.saved_model.save(model, path, signatures={"serving_default": model.serve})

# Read it back as a server would, through its signature.
served = tf.saved_model.load(path).signatures["serving_default"]
error = float(tf.reduce_max(tf.abs(served(x=x)["y"] - y)))
print("model saved to %s: loss %.5f, max error %.4f" % (path, float(loss), error))
raise SystemExit(0 if error < 0.05 else 1)
