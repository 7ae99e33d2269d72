#!/usr/bin/env python3
"""The tokenizer's peers on the bundled corpus: Hugging Face's Rust tokenizer (transformers 5's
BertTokenizer, on the tokenizers package) on one thread and the Python one
(BertTokenizerLegacy), each doing batch_encode of all 17,364 reviews as ember_bench_tokenizer
does (the bundled vocab.txt, max_length 128, truncation, padding to the longest). Checks that
both give Ember's ids (written by ember_bench_tokenizer with EMBER_BENCH_TOKENIZER_IDS) and
prints one JSON row per peer with its median seconds, like bench/torch_rows.py.

    EMBER_BENCH_TOKENIZER_IDS=/tmp/ids.bin build/bench/ember_bench_tokenizer
    RAYON_NUM_THREADS=1 .venv/bin/python bench/tokenizer_twin.py --ids /tmp/ids.bin [--repetitions 5]
"""
import argparse
import gzip
import json
import os
import statistics
import struct
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVIEWS = os.path.join(ROOT, "examples", "data", "reviews")
ROW = "tokenizer_batch_encode/cpu/17364/threads:1"


def load_texts():
    with gzip.open(os.path.join(REVIEWS, "reviews.tsv.gz"), "rt", encoding="utf-8", newline="\n") as f:
        return [line.rstrip("\n").rstrip("\r").split("\t", 1)[1] for line in f if line.strip()]


def read_ids(path):
    with open(path, "rb") as f:
        rows, cols = struct.unpack("<qq", f.read(16))
        return np.frombuffer(f.read(), dtype="<i8").reshape(rows, cols)


def timed(fn, repetitions):
    times = []
    for _ in range(repetitions):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ids", required=True, help="Ember's ids (EMBER_BENCH_TOKENIZER_IDS)")
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--legacy-repetitions", type=int, default=1)
    args = ap.parse_args()
    if os.environ.get("RAYON_NUM_THREADS") != "1":
        raise SystemExit("run with RAYON_NUM_THREADS=1: the Rust tokenizer's batch uses every core otherwise")
    from transformers import BertTokenizer
    from transformers.models.bert.tokenization_bert import load_vocab
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy
    texts, ember = load_texts(), read_ids(args.ids)
    vocab = os.path.join(REVIEWS, "vocab.txt")
    # transformers 5's BertTokenizer takes the vocabulary itself (vocab=); given vocab_file it
    # builds its own and every id differs (as tests/parity/make_tokenizer_fixtures.py found).
    for name, tok, reps in (("Rust", BertTokenizer(vocab=load_vocab(vocab)), args.repetitions),
                            ("Python", BertTokenizerLegacy(vocab_file=vocab), args.legacy_repetitions)):
        seconds, out = timed(lambda tok=tok: tok(texts, max_length=128, truncation=True, padding="longest")["input_ids"],
                             reps)
        ids = np.array(out, dtype=np.int64)
        same = ids.shape == ember.shape and bool((ids == ember).all())
        mismatched = int((ids != ember).any(axis=1).sum()) if ids.shape == ember.shape else len(texts)
        print(json.dumps({"name": ROW, "peer": f"{name} ({type(tok).__name__})", "seconds": seconds,
                          "reviews_per_second": len(texts) / seconds, "same_ids_as_ember": same,
                          "rows_differing": mismatched}))


if __name__ == "__main__":
    main()
