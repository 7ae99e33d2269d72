#!/usr/bin/env python3
"""Writes the PyTorch parity fixtures of the transformer toolkit (tests/parity/fixtures).

Run by hand with PyTorch from PyPI (CI never runs it; the fixtures are committed):
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch safetensors
    /tmp/venv/bin/python tests/parity/make_transformer_fixtures.py

Every case draws float32 inputs and weights (stored as float32, exact), computes the forward
and the gradients of sum(output * grad_weight) in float64 on the CPU (the reference the tests
compare with under docs/DESIGN.md's tolerance), and stores them rounded to float32 (half the
bytes; the rounding, 6e-8 relative, is far inside the tolerance). Keys:
  input.*   the op's tensor arguments (float32; masks as bool)
  param.*   module parameters under PyTorch's names (float32)
  output    the forward's result
  grad_weight  the weights of the scalar that is differentiated (float32)
  grad.*    gradients of that scalar for every input.* and param.* that takes one
"""
import os

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
torch.manual_seed(20261202)


def rand(*shape, scale=1.0):
    return (torch.randn(*shape) * scale).float()


def save(name, inputs, params, fn, meta=None):
    """fn(inputs64, params64) -> output (float64)."""
    ins64 = {k: (v.double().requires_grad_(True) if v.is_floating_point() else v) for k, v in inputs.items()}
    ps64 = {k: v.double().requires_grad_(True) for k, v in params.items()}
    out = fn(ins64, ps64)
    gw = rand(*out.shape)
    (out * gw.double()).sum().backward()
    tensors = {f"input.{k}": v.contiguous() for k, v in inputs.items()}
    tensors.update({f"param.{k}": v.contiguous() for k, v in params.items()})
    tensors["output"] = out.detach().float().contiguous()
    tensors["grad_weight"] = gw.contiguous()
    for k, v in list(ins64.items()) + list(ps64.items()):
        if v.is_floating_point() and v.grad is not None:
            prefix = "input" if k in ins64 else "param"
            tensors[f"grad.{prefix}.{k}"] = v.grad.float().contiguous()
    assert all(torch.isfinite(t.double()).all() for t in tensors.values() if t.is_floating_point()), name
    save_file(tensors, os.path.join(OUT, f"{name}.safetensors"), metadata=meta or {})


def layer_norm_cases():
    x = rand(3, 4, 16) + 3.0  # an offset: statistics must subtract the mean
    save("layer_norm", {"x": x}, {"weight": rand(16), "bias": rand(16)},
         lambda i, p: F.layer_norm(i["x"], (16,), p["weight"], p["bias"], 1e-5))
    save("layer_norm_2d_noaffine", {"x": rand(2, 3, 5)}, {},
         lambda i, p: F.layer_norm(i["x"], (3, 5), None, None, 1e-6))


def gelu_cases():
    x = rand(4, 33, scale=3.0)
    save("gelu", {"x": x}, {}, lambda i, p: F.gelu(i["x"]))
    save("gelu_tanh", {"x": x}, {}, lambda i, p: F.gelu(i["x"], approximate="tanh"))


def sdpa_cases():
    B, H, L, S, E = 2, 3, 5, 7, 8
    q, k, v = rand(B, H, L, E), rand(B, H, S, E), rand(B, H, S, E)
    qkv = {"q": q, "k": k, "v": v}

    def sdpa(**kw):
        return lambda i, p: F.scaled_dot_product_attention(i["q"], i["k"], i["v"], **kw)

    save("sdpa", qkv, {}, sdpa())
    save("sdpa_causal", qkv, {}, sdpa(is_causal=True))
    save("sdpa_scale", qkv, {}, sdpa(scale=0.3))
    # Bool mask (true = attend) over keys, broadcast over heads and queries; the second batch's
    # last three keys are padding.
    keymask = torch.ones(B, 1, 1, S, dtype=torch.bool)
    keymask[1, :, :, 4:] = False
    save("sdpa_bool_mask", dict(qkv, mask=keymask), {},
         lambda i, p: F.scaled_dot_product_attention(i["q"], i["k"], i["v"], attn_mask=i["mask"]))
    additive = rand(L, S)
    save("sdpa_additive_mask", dict(qkv, mask=additive), {},
         lambda i, p: F.scaled_dot_product_attention(i["q"], i["k"], i["v"], attn_mask=i["mask"].detach()))
    # A query row whose keys are all masked: zeros and zero gradients (PyTorch's math path
    # gives zeros too since 2.5; checked here so the fixture says so).
    full = torch.ones(B, H, L, S, dtype=torch.bool)
    full[0, 1, 2, :] = False
    save("sdpa_fully_masked_row", dict(qkv, mask=full), {},
         lambda i, p: F.scaled_dot_product_attention(i["q"], i["k"], i["v"], attn_mask=i["mask"]))


def mha_case():
    d, h, B, L = 16, 4, 2, 5
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True, dropout=0.0)
    params = {k: v.detach().float() for k, v in mha.state_dict().items()}
    x = rand(B, L, d)
    kpm = torch.zeros(B, L, dtype=torch.bool)  # PyTorch's MHA: true = ignore
    kpm[1, 3:] = True
    causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)

    def run(i, p):
        m = torch.nn.MultiheadAttention(d, h, batch_first=True, dropout=0.0).double()
        out, _ = torch.func.functional_call(m, p, (i["x"], i["x"], i["x"]),
                                            {"key_padding_mask": i["key_padding_mask"],
                                             "attn_mask": i["attn_mask"], "need_weights": False})
        return out

    save("multihead_attention", {"x": x, "key_padding_mask": kpm, "attn_mask": causal}, params, run)


def encoder_cases():
    d, h, ff, B, L = 64, 4, 128, 2, 6
    for norm_first in (False, True):
        layer = torch.nn.TransformerEncoderLayer(d, h, dim_feedforward=ff, dropout=0.0, activation="gelu",
                                                 batch_first=True, norm_first=norm_first)
        enc = torch.nn.TransformerEncoder(layer, num_layers=2, norm=torch.nn.LayerNorm(d) if norm_first else None,
                                          enable_nested_tensor=False)
        params = {k: v.detach().float() for k, v in enc.state_dict().items()}
        x = rand(B, L, d)
        kpm = torch.zeros(B, L, dtype=torch.bool)
        kpm[0, 4:] = True

        def run(i, p, enc=enc):
            m = enc.double().train()  # training mode: PyTorch's fast path (zeros at padding) is off
            return torch.func.functional_call(m, p, (i["x"],), {"src_key_padding_mask": i["key_padding_mask"]})

        save(f"transformer_encoder_{'norm_first' if norm_first else 'post_norm'}",
             {"x": x, "key_padding_mask": kpm}, params, run,
             meta={"d_model": str(d), "nhead": str(h), "dim_feedforward": str(ff), "num_layers": "2",
                   "activation": "gelu", "norm_first": str(norm_first).lower(), "layer_norm_eps": "1e-05"})


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    layer_norm_cases()
    gelu_cases()
    sdpa_cases()
    mha_case()
    encoder_cases()
    print(torch.__version__, "->", OUT)
    for f in sorted(os.listdir(OUT)):
        print(f"  {f} {os.path.getsize(os.path.join(OUT, f))} bytes")
