#!/usr/bin/env python3
"""A PyTorch twin of Ember's default text classifier (examples/text_classifier, --mode finetune
without --pretrained): the same model trained the same way with transformers' BertModel, to
check that both implement the same thing. Its final test accuracy should land within about
1 point of Ember's.

    python3 bench/text_classifier_twin.py                  # 3 epochs, 2 threads
    python3 bench/text_classifier_twin.py --limit 1000 --epochs 1 --threads 1

It needs torch, transformers (5.x) and numpy, and runs on the CPU only. The flags are
Ember's: --epochs, --batch-size, --max-length, --lr, --warmup, --seed, --threads, --limit,
--log-interval, --data, --vocab, with Ember's defaults. The output has the lines of Ember's
(a first line with the sizes, `[epoch, batch] loss: x.xxx` every --log-interval batches,
`Epoch N: test accuracy ..., ROC AUC ...; ... s, ... examples/s` after each epoch).

Matched exactly:
- data: examples/data/reviews/reviews.tsv.gz read as data::load_reviews reads it, in file order; the
  split of data::train_test_split(reviews, 0.1, seed 0) (the first ceil(0.1 n) indices of
  data::shuffled_indices(n, 0, 0) are the test set, each part in file order); --limit N keeps
  the first N indices of shuffled_indices(size, --seed, 0) of each part, in that order, as
  main.cpp does. shuffled_indices (std::seed_seq + std::mt19937_64 + Fisher-Yates, all
  specified by the C++ standard) comes from examples/data/reviews/make_reviews.py, which
  reimplements it in Python for the vocabulary; it was checked against g++'s output.
- tokenizer: transformers' BertTokenizer (the tokenizers library) on examples/data/reviews/vocab.txt,
  lower case, accents stripped with it, CJK characters split: data::BertTokenizer's defaults.
  [CLS] text [SEP], truncation to --max-length, each batch padded to its longest row
  (text_collate's default EncodeOptions), token types all 0.
- model: BertModel (SDPA attention) with small_config: hidden 128, 2 layers, 4 heads,
  intermediate 512, max positions max(128, --max-length), vocabulary = the lines of
  vocab.txt, gelu (erf), dropouts 0.1, 2 token types, LayerNorm eps 1e-12, pad id 0; head:
  dropout(0.1) and Linear(128, 2) on last_hidden_state[:, 0] (not the pooler), as Ember's
  SequenceClassifier. Initialised as both do: N(0, 0.02) weights, zero biases, LayerNorms
  1 and 0, the padding row 0, the head N(0, 0.02) with a zero bias.
- training: AdamW (betas 0.9, 0.999, eps 1e-8, weight decay 0.01 on every parameter: Ember's
  AdamWOptions), lr --lr, get_linear_schedule_with_warmup with int(--warmup * steps) warmup
  steps of steps = batches per epoch * epochs, clip_grad_norm_(1.0) over all parameters,
  mean cross entropy; the training order of epoch e (1-based) is shuffled_indices(n_train,
  --seed, e - 1) (the DataLoader numbers epochs from 0), batches of --batch-size with the
  last partial one kept (drop_last false).
- evaluation after each epoch: eval mode, no_grad, test batches of 64 in order; accuracy of
  argmax and ROC AUC of softmax's class-1 probability with mid-ranks for ties (nn::roc_auc).
  The time and examples/s cover the training batches only, as Ember's.

Not matched (cannot be): the random streams. torch.manual_seed(--seed) seeds PyTorch's
generator, not Ember's, so initial weights and dropout masks differ, and so do float
summation orders; losses and accuracies agree only statistically: the final accuracy within
about 1 point.
"""
import argparse
import gzip
import importlib.util
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertModel, BertTokenizer, get_linear_schedule_with_warmup
from transformers.models.bert.tokenization_bert import load_vocab

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVIEWS = os.path.join(ROOT, "examples", "data", "reviews")
TEST_FRACTION, SPLIT_SEED = 0.1, 0  # examples::Reviews::kTestFraction, kSeed (examples/common/bundled_data.h)
TEST_BATCH = 64  # main.cpp's test loader


def _load_make_reviews():
    spec = importlib.util.spec_from_file_location("make_reviews", os.path.join(REVIEWS, "make_reviews.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# data::shuffled_indices(n, seed, epoch) and ceil(fraction * n - 1e-9) of train_test_split.
_make_reviews = _load_make_reviews()
shuffled_indices = _make_reviews.shuffled_indices
test_count = _make_reviews.test_count


def load_reviews(path):
    """(texts, labels) as data::load_reviews reads them: raw or gzip by content, one
    "<label>\\t<text>" a line, "\\r" before "\\n" dropped, the last line's "\\n" optional."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    texts, labels = [], []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    for number, line in enumerate(lines, 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        label, tab, text = line.partition(b"\t")
        if not tab or not label.isdigit() or len(label) > 10 or int(label) > 2**31 - 1:
            raise SystemExit(f"{path}: line {number} is not <label><TAB><text>")
        texts.append(text.decode("utf-8"))
        labels.append(int(label))
    return texts, labels


def train_test_split(n, fraction, seed):
    """(train indices, test indices), each in corpus order, as data::train_test_split."""
    in_test = set(shuffled_indices(n, seed, 0)[:min(n, test_count(n, fraction))])
    return [i for i in range(n) if i not in in_test], sorted(in_test)


def vocab_lines(path):
    """The lines of vocab.txt (data::BertTokenizer::vocab_size: universal newlines, a final
    line without a newline counts)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return len(lines)


class SequenceClassifier(torch.nn.Module):
    """Ember's examples::SequenceClassifier: dropout and Linear(hidden, labels) on [CLS]."""

    def __init__(self, config, num_labels=2):
        super().__init__()
        self.bert = BertModel(config)  # post_init: transformers' _init_weights
        self.dropout = torch.nn.Dropout(config.hidden_dropout_prob)
        self.classifier = torch.nn.Linear(config.hidden_size, num_labels)
        with torch.no_grad():
            self.classifier.weight.normal_(0.0, config.initializer_range)
            self.classifier.bias.zero_()

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                           token_type_ids=token_type_ids).last_hidden_state
        return self.classifier(self.dropout(hidden[:, 0]))


def small_config(vocab_size, max_length):
    """main.cpp's small_config on nn::models::BertConfig's defaults."""
    return BertConfig(vocab_size=vocab_size, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=512, hidden_act="gelu", hidden_dropout_prob=0.1,
                      attention_probs_dropout_prob=0.1, max_position_embeddings=max(128, max_length),
                      type_vocab_size=2, initializer_range=0.02, layer_norm_eps=1e-12, pad_token_id=0,
                      attn_implementation="sdpa")


def roc_auc(scores, labels):
    """nn::roc_auc: Mann-Whitney U over ranks, ties sharing their mean rank."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    lo = 0
    while lo < len(s):
        hi = lo + 1
        while hi < len(s) and s[order[hi]] == s[order[lo]]:
            hi += 1
        ranks[order[lo:hi]] = 0.5 * (lo + 1 + hi)
        lo = hi
    p = int(y.sum())
    n = len(y) - p
    return (ranks[y == 1].sum() - p * (p + 1) / 2) / (p * n)


def batches(texts, labels, order, size, tokenizer, max_length):
    """text_collate over DataLoader batches of order: ids, mask, types [B, L] and labels [B]."""
    for start in range(0, len(order), size):
        idx = order[start:start + size]
        enc = tokenizer([texts[i] for i in idx], padding="longest", truncation=True, max_length=max_length,
                        return_tensors="pt")
        yield (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"],
               torch.tensor([labels[i] for i in idx], dtype=torch.int64))


def evaluate(model, texts, labels, tokenizer, max_length):
    model.eval()
    probs, classes = [], []
    with torch.no_grad():
        for ids, mask, types, _ in batches(texts, labels, list(range(len(texts))), TEST_BATCH, tokenizer,
                                           max_length):
            logits = model(ids, mask, types)
            probs.append(torch.softmax(logits, 1)[:, 1])
            classes.append(torch.argmax(logits, 1))
    y = torch.tensor(labels)
    accuracy = 100.0 * (torch.cat(classes) == y).double().mean().item()
    return accuracy, roc_auc(torch.cat(probs).numpy(), labels)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=os.path.join(REVIEWS, "reviews.tsv.gz"))
    p.add_argument("--vocab", default=os.path.join(REVIEWS, "vocab.txt"))
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=float, default=0.1, help="fraction of the steps with a rising lr")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--limit", type=int, default=0, help="only N training and N test reviews (0: all)")
    p.add_argument("--log-interval", type=int, default=50)
    a = p.parse_args()
    # flags.cpp's checks.
    for name, value, low in (("--epochs", a.epochs, 1), ("--batch-size", a.batch_size, 1),
                             ("--max-length", a.max_length, 3), ("--threads", a.threads, 1),
                             ("--log-interval", a.log_interval, 1)):
        if value < low:
            p.error(f"{name} must be at least {low}")
    if not a.lr > 0:
        p.error("--lr must be positive")
    if not 0 <= a.warmup < 1:
        p.error("--warmup must be in [0, 1)")
    return a


def main():
    a = parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)

    texts, labels = load_reviews(a.data)
    train_idx, test_idx = train_test_split(len(texts), TEST_FRACTION, SPLIT_SEED)
    if a.limit > 0:
        # main.cpp's `first`: a random sample, in the sampled order.
        train_idx = [train_idx[i] for i in shuffled_indices(len(train_idx), a.seed, 0)[:a.limit]]
        test_idx = [test_idx[i] for i in shuffled_indices(len(test_idx), a.seed, 0)[:a.limit]]
    train_texts, train_labels = [texts[i] for i in train_idx], [labels[i] for i in train_idx]
    test_texts, test_labels = [texts[i] for i in test_idx], [labels[i] for i in test_idx]

    tokenizer = BertTokenizer(vocab=load_vocab(a.vocab), do_lower_case=True)
    config = small_config(vocab_lines(a.vocab), a.max_length)
    model = SequenceClassifier(config)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    batches_per_epoch = math.ceil(len(train_idx) / a.batch_size)
    steps = batches_per_epoch * a.epochs
    schedule = get_linear_schedule_with_warmup(opt, int(a.warmup * steps), steps)

    print(f"PyTorch {torch.__version__} twin, fine-tuning a BERT (hidden {config.hidden_size}, "
          f"{config.num_hidden_layers} layers, {config.num_attention_heads} heads) on cpu: "
          f"{len(train_idx)} train / {len(test_idx)} test reviews, max length {a.max_length}, "
          f"batch {a.batch_size}, {a.threads} thread{'' if a.threads == 1 else 's'}", flush=True)
    for epoch in range(1, a.epochs + 1):
        model.train()
        t0 = time.perf_counter()
        seen, interval_loss, in_interval = 0, 0.0, 0
        order = shuffled_indices(len(train_idx), a.seed, epoch - 1)
        for batch_index, (ids, mask, types, y) in enumerate(
                batches(train_texts, train_labels, order, a.batch_size, tokenizer, a.max_length), 1):
            loss = F.cross_entropy(model(ids, mask, types), y)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            schedule.step()
            seen += len(y)
            interval_loss += loss.item()
            in_interval += 1
            if in_interval == a.log_interval:
                print(f"[{epoch}, {batch_index:5d}] loss: {interval_loss / in_interval:.3f}", flush=True)
                interval_loss, in_interval = 0.0, 0
        seconds = time.perf_counter() - t0
        accuracy, auc = evaluate(model, test_texts, test_labels, tokenizer, a.max_length)
        print(f"Epoch {epoch}: test accuracy {accuracy:.1f} %, ROC AUC {auc:.3f}; {seconds:.1f} s, "
              f"{seen / seconds:.0f} examples/s", flush=True)


if __name__ == "__main__":
    main()
