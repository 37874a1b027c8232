"""A jitted JAX training loop of a small MLP: XLA compiles the step first (seconds of host
time before a few milliseconds of steps), then launches each step as a graph (issue 24:
compilation is not a steady step).

    python3 jax_loop.py [--steps N]
"""
import argparse
import json
import time

import jax
import jax.numpy as jnp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    k = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(k, 3)
    params = {"w1": jax.random.normal(k1, (512, 1024)) * 0.02, "w2": jax.random.normal(k2, (1024, 10)) * 0.02}
    x = jax.random.normal(k3, (256, 512))
    y = jnp.zeros((256,), jnp.int32)

    def loss(p, x, y):
        h = jax.nn.relu(x @ p["w1"])
        logits = h @ p["w2"]
        return -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(y.shape[0]), y])

    @jax.jit
    def step(p, x, y):
        g = jax.grad(loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g)

    t0 = time.perf_counter()
    for _ in range(a.steps):
        params = step(params, x, y)
    jax.block_until_ready(params)
    print(json.dumps({"steps": a.steps, "seconds": time.perf_counter() - t0}))


if __name__ == "__main__":
    main()
