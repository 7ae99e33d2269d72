#!/usr/bin/env python3
"""Writes the Hugging Face parity fixtures of nn::models::Bert (tests/parity/fixtures/bert_*).

Run by hand with torch and transformers from PyPI (CI never runs it; the fixtures are committed):
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch transformers safetensors
    /tmp/venv/bin/python tests/parity/make_bert_fixtures.py
    /tmp/venv/bin/python tests/parity/make_bert_fixtures.py --check-ember-dir DIR

Three tiny random BERTs (vocab 100, hidden 32, 2 layers, 4 heads, intermediate 64, 32 positions,
2 token types; weights drawn larger than transformers' init, so that attention and the
activations are far from uniform and linear), each a directory as transformers writes it (config.json, model.safetensors):
  bert_gelu       BertModel, hidden_act gelu, float32, no prefix
  bert_gelu_new   BertForSequenceClassification, hidden_act gelu_new, float32: the "bert." prefix
                  and leftover classifier.* tensors
  bert_gelu_bf16  bert_gelu's weights rounded to bfloat16 and saved in bfloat16
plus, per model, io.safetensors: a padded batch of 3 sequences of two segments (lengths 12, 9
and 6), the outputs (last_hidden_state, pooler_output) computed in float64 from the stored
weights (bf16: upcast) with transformers' default (SDPA) attention, the outputs when the third
sequence's mask is all zeros (all_masked.*), and one fine-tuning step of a classifier in eval
mode (dropout off): Linear(32, 2) on last_hidden_state[:, 0] (its init head.*), labels,
cross-entropy loss and the gradients grad.<name> of the head and of two of the model's weights
(not for bert_gelu_bf16, whose outputs test the loading). Values are stored as float32.

--check-ember-dir DIR loads DIR (written by Ember's Bert::save_pretrained from bert_gelu) with
transformers' BertModel.from_pretrained and compares its outputs with bert_gelu's. Ember's test
writes such a directory when asked:
    EMBER_BERT_SAVE_DIR=/tmp/ember-bert build/tests/ember_tests --gtest_filter=Bert.SavePretrainedRoundTrips
"""
import argparse
import os

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import BertConfig, BertForSequenceClassification, BertModel

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
GRADS = ["head.weight", "head.bias", "encoder.layer.0.attention.self.query.weight",
         "embeddings.word_embeddings.weight"]


def config(act):
    return BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, hidden_act=act, max_position_embeddings=32, type_vocab_size=2,
                      pad_token_id=0)


def inputs():
    """[CLS] a [SEP] b [SEP] then padding (id 0), token types 0 then 1."""
    g = torch.Generator().manual_seed(7)
    lengths, first = [12, 9, 6], [5, 3, 2]
    L = max(lengths)
    ids = torch.zeros(3, L, dtype=torch.long)
    types = torch.zeros(3, L, dtype=torch.long)
    mask = torch.zeros(3, L, dtype=torch.long)
    for b, (n, a) in enumerate(zip(lengths, first)):
        ids[b, :n] = torch.randint(5, 100, (n,), generator=g)
        ids[b, 0], ids[b, a + 1], ids[b, n - 1] = 2, 3, 3
        types[b, a + 2:n] = 1
        mask[b, :n] = 1
    return ids, mask, types


def outputs(model, ids, mask, types):
    """The float64 forward of model's weights: (last_hidden_state, pooler_output)."""
    m = BertModel(model.config).double().eval()
    m.load_state_dict({k: v.double() for k, v in model.state_dict().items()})
    out = m(input_ids=ids, attention_mask=mask, token_type_ids=types)
    return m, out.last_hidden_state, out.pooler_output


def randomize(model):
    """Weights of std 0.3 (embeddings 1), LayerNorms near 1 and 0, the padding row kept zero."""
    with torch.no_grad():
        for k, p in model.named_parameters():
            if "LayerNorm" in k:
                p.copy_((1.0 if k.endswith("weight") else 0.0) + 0.1 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) * (1.0 if "embeddings" in k else 0.3))
        model.get_input_embeddings().weight[0].zero_()
    return model


def write_io(name, model, step=True):
    ids, mask, types = inputs()
    m, hidden, pooled = outputs(model, ids, mask, types)
    t = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types,
         "last_hidden_state": hidden, "pooler_output": pooled}
    all_masked = mask.clone()
    all_masked[2] = 0
    with torch.no_grad():
        o = m(input_ids=ids, attention_mask=all_masked, token_type_ids=types)
    t["all_masked.attention_mask"] = all_masked
    t["all_masked.last_hidden_state"], t["all_masked.pooler_output"] = o.last_hidden_state, o.pooler_output
    if step:
        fine_tuning_step(m, t, ids, mask, types)
    t = {k: (v.detach().float() if v.is_floating_point() else v).contiguous() for k, v in t.items()}
    assert all(torch.isfinite(v.double()).all() for v in t.values()), name
    save_file(t, os.path.join(OUT, name, "io.safetensors"))


def fine_tuning_step(m, t, ids, mask, types):
    """One step of a classifier on the [CLS] state: the head's init, labels, loss, gradients."""
    torch.manual_seed(11)
    head = torch.nn.Linear(32, 2)
    t["head_init.weight"], t["head_init.bias"] = head.weight.detach().clone(), head.bias.detach().clone()
    head = head.double()
    labels = torch.tensor([1, 0, 1])
    m.zero_grad()
    hidden = m(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state
    loss = F.cross_entropy(head(hidden[:, 0]), labels)
    loss.backward()
    t["labels"], t["loss"] = labels, loss.detach()
    named = dict(m.named_parameters())
    named.update({"head." + k: v for k, v in head.named_parameters()})
    for k in GRADS:
        t["grad." + k] = named[k].grad


def make():
    torch.manual_seed(20261202)
    gelu = randomize(BertModel(config("gelu")).eval())
    gelu.save_pretrained(os.path.join(OUT, "bert_gelu"))
    write_io("bert_gelu", gelu)

    cls = BertForSequenceClassification(config("gelu_new")).eval()
    randomize(cls.bert)
    cls.save_pretrained(os.path.join(OUT, "bert_gelu_new"))
    write_io("bert_gelu_new", cls.bert)

    bf16 = BertModel(config("gelu")).eval()
    bf16.load_state_dict(gelu.state_dict())
    bf16 = bf16.to(torch.bfloat16)
    bf16.save_pretrained(os.path.join(OUT, "bert_gelu_bf16"))
    upcast = BertModel(config("gelu")).eval()
    upcast.load_state_dict({k: v.float() for k, v in bf16.state_dict().items()})
    write_io("bert_gelu_bf16", upcast, step=False)

    print(torch.__version__, __import__("transformers").__version__, "->", OUT)
    total = 0
    for d in sorted(x for x in os.listdir(OUT) if x.startswith("bert_")):
        for f in sorted(os.listdir(os.path.join(OUT, d))):
            size = os.path.getsize(os.path.join(OUT, d, f))
            total += size
            print(f"  {d}/{f} {size} bytes")
    print(f"  total {total} bytes")


def check_ember_dir(path):
    model, info = BertModel.from_pretrained(path, output_loading_info=True)
    print(f"transformers {__import__('transformers').__version__} BertModel.from_pretrained({path!r}):")
    for k, v in info.items():
        print(f"  {k}: {sorted(v) if not isinstance(v, list) else v}")
    ref = load_file(os.path.join(OUT, "bert_gelu", "io.safetensors"))
    reference = BertModel.from_pretrained(os.path.join(OUT, "bert_gelu"))
    for k, v in reference.state_dict().items():
        assert torch.equal(v, model.state_dict()[k]), f"{k} differs from bert_gelu's"
    print(f"  config: hidden_act={model.config.hidden_act} layer_norm_eps={model.config.layer_norm_eps} "
          f"pad_token_id={model.config.pad_token_id}; every tensor equals bert_gelu's")
    _, hidden, pooled = outputs(model, ref["input_ids"], ref["attention_mask"], ref["token_type_ids"])
    for name, got in (("last_hidden_state", hidden), ("pooler_output", pooled)):
        err = (got - ref[name].double()).abs().max().item()
        print(f"  {name}: max |transformers(Ember's dir) - fixture| = {err:.3g}")
        assert err < 1e-5, name


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--check-ember-dir", help="a directory written by Ember's Bert::save_pretrained")
    args = parser.parse_args()
    if args.check_ember_dir:
        check_ember_dir(args.check_ember_dir)
    else:
        make()
