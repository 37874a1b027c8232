"""A transformers Llama run as an inference server runs it under CUDA graphs: random weights
from a config (no download), a fixed-shape batch, the forward captured once in a CUDA graph
(torch.cuda.graph, after a warm-up on a side stream) or compiled with
torch.compile(mode="reduce-overhead") (--compile: Inductor's CUDA graph trees), then
replayed once a step with the step's input copied in before and a value of its output
taken after. What kgantt must find: the capture as graph capture, not host-bound, and the
replays as the steps, not the model's layers.

    python3 graph_steps.py [--steps N] [--layers L] [--dim D] [--compile]

Prints one JSON line: steps, layers, seconds per step.
"""
import argparse
import json
import time

import torch
from transformers import LlamaConfig, LlamaModel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--compile", action="store_true")
    a = ap.parse_args()
    cfg = LlamaConfig(hidden_size=a.dim, intermediate_size=4 * a.dim, num_hidden_layers=a.layers,
                      num_attention_heads=a.dim // 64, num_key_value_heads=a.dim // 64,
                      vocab_size=1000, max_position_embeddings=512)
    torch.manual_seed(0)
    model = LlamaModel(cfg).to("cuda", torch.bfloat16).eval()
    static_in = torch.randn(8, 128, a.dim, device="cuda", dtype=torch.bfloat16)
    batches = [torch.randn_like(static_in) for _ in range(4)]
    with torch.no_grad():
        if a.compile:
            fwd = torch.compile(lambda x: model(inputs_embeds=x, use_cache=False).last_hidden_state,
                                mode="reduce-overhead")
            for _ in range(3):
                fwd(static_in)
            run = lambda: fwd(static_in)
        else:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    model(inputs_embeds=static_in, use_cache=False)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = model(inputs_embeds=static_in, use_cache=False).last_hidden_state
            def run():
                graph.replay()
                return static_out
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(a.steps):
            static_in.copy_(batches[i % len(batches)])
            out = run()
            norm = out.float().norm()
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
    print(json.dumps({"steps": a.steps, "layers": a.layers, "compile": a.compile,
                      "seconds_per_step": dt / a.steps, "norm": float(norm)}))


main()
