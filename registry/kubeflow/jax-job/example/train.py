# kf's example for jax-job: a linear model fitted with data-parallel SGD across every
# process and device of the JAXJob, on random data, in a few seconds; then it exits 0.
# The training-operator gives each Worker COORDINATOR_ADDRESS, COORDINATOR_PORT,
# NUM_PROCESSES and PROCESS_ID (worker 0 is the coordinator).
import os

import jax

# CPU-only pods need an explicit collectives backend for cross-process reductions.
jax.config.update("jax_cpu_collectives_implementation", "gloo")
processes = int(os.environ.get("NUM_PROCESSES", "1"))
if processes > 1:
    jax.distributed.initialize(
        coordinator_address="%s:%s" % (os.environ["COORDINATOR_ADDRESS"], os.environ["COORDINATOR_PORT"]),
        num_processes=processes,
        process_id=int(os.environ["PROCESS_ID"]),
    )

import jax.numpy as jnp  # noqa: E402  (after initialize, as JAX requires)

local = jax.local_device_count()
keys = jax.random.split(jax.random.PRNGKey(jax.process_index()), local)
x = jax.vmap(lambda k: jax.random.normal(k, (256, 4)))(keys)
true_w = jnp.array([1.0, -2.0, 3.0, 0.5])
y = x @ true_w


def step(w, x, y):
    grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - 0.1 * jax.lax.pmean(grad, "devices")


step = jax.pmap(step, axis_name="devices")
w = jnp.zeros((local, 4))
for _ in range(200):
    w = step(w, x, y)
error = float(jnp.max(jnp.abs(w[0] - true_w)))
print("process %d of %d, %d devices in all: weights %s, max error %.4f"
      % (jax.process_index(), jax.process_count(), jax.device_count(), w[0], error))
raise SystemExit(0 if error < 0.05 else 1)
