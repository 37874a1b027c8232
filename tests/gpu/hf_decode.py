"""A Llama-style decoder from `transformers`, random weights from a config (no download),
generating at batch 1: the host-bound loop every user of `generate` has (issues 23, 24).

    python3 hf_decode.py [--tokens N] [--layers L] [--dim D] [--attention BACKEND]

--attention flash|math|efficient: the attention kernel PyTorch's SDPA may use (default: its
own choice, which on the H200 is cuDNN's, compiled at run time for each new KV length).

Prints one JSON line: tokens generated, seconds, tokens a second.
"""
import argparse
import json
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--attention", choices=["flash", "math", "efficient"])
    a = ap.parse_args()
    cfg = LlamaConfig(hidden_size=a.dim, intermediate_size=4 * a.dim, num_hidden_layers=a.layers,
                      num_attention_heads=a.dim // 64, num_key_value_heads=a.dim // 64,
                      vocab_size=32000, max_position_embeddings=2048)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
    prompt = torch.randint(0, cfg.vocab_size, (1, 16), device="cuda")
    backends = {"flash": "FLASH_ATTENTION", "math": "MATH", "efficient": "EFFICIENT_ATTENTION"}
    if a.attention:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        ctx = sdpa_kernel(getattr(SDPBackend, backends[a.attention]))
    else:
        import contextlib
        ctx = contextlib.nullcontext()
    with torch.no_grad(), ctx:
        model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)  # warm-up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model.generate(prompt, max_new_tokens=a.tokens, min_new_tokens=a.tokens,
                             do_sample=False)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
    n = out.shape[1] - prompt.shape[1]
    print(json.dumps({"tokens": n, "seconds": dt, "tokens_per_s": n / dt,
                      "attention": a.attention or "default"}))


if __name__ == "__main__":
    main()
