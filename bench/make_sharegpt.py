#!/usr/bin/env python3
"""Writes a ShareGPT-shaped prompt file for bench/prompt_file_memory.

The shape of the published ShareGPT_V3_unfiltered_cleaned_split.json: one JSON
array, pretty-printed with two-space indentation, of {"id", "conversations":
[{"from": "human"|"gpt"|"system", "value"}]} objects. Conversations are
multi-turn; the human turns are a minority of the bytes (--human-share, about
20 % by default; the assistant replies are the rest); texts carry newlines,
quotes, backslashes and non-ASCII text, written raw (UTF-8) in most
conversations and as \\uXXXX escapes (surrogate pairs for emoji) in the others.
The same seed gives the same bytes.

    bench/make_sharegpt.py --size 1G --out /tmp/sharegpt-1g.json --jsonl /tmp/sharegpt-1g.jsonl

--jsonl also writes the same conversations as JSON Lines, one per line, to
compare the two readers on the same content.
"""
import argparse
import json
import math
import random
import sys

WORDS = (
    "the of and to in is that for it as with was on be by this are or from at an which have not but "
    "what all were when we there can more if will one about would their some so into them these other "
    "model server request token latency throughput batch cache prompt reply function value string list "
    "error table query index memory thread socket buffer stream parse write read file path number result "
    "explain write summarize translate improve rewrite compare describe design review suggest list give"
).split()
FOREIGN = [
    "café", "naïve", "über", "façade", "São Paulo", "Zürich", "año", "œuvre", "straße", "smörgåsbord",
    "日本語", "中文", "한국어", "русский", "ελληνικά", "עברית", "العربية", "हिन्दी", "ไทย",
    "😀", "🚀", "👍", "🤖", "∑", "→", "—", "…", "€", "½",
]
SNIPPETS = [
    'print("hello, world")',
    'path = "C:\\\\Users\\\\me\\\\file.txt"',
    "if (a < b && c > d) { return x[i]; }",
    "SELECT name FROM users WHERE id = 'x';",
    '{"key": "value", "n": [1, 2, 3]}',
    "regex: ^\\d+\\.\\d*$",
    "\ttabbed\tcolumns\there",
]


def make_pool(rng, count):
    """Sentences to draw texts from: drawing whole sentences keeps 1 GB fast."""
    pool = []
    for _ in range(count):
        words = []
        for _ in range(rng.randint(4, 28)):
            roll = rng.random()
            if roll < 0.04:
                words.append(rng.choice(FOREIGN))
            elif roll < 0.05:
                words.append(rng.choice(SNIPPETS))
            else:
                words.append(rng.choice(WORDS))
        sentence = " ".join(words)
        sentence = sentence[0].upper() + sentence[1:] + rng.choice([".", ".", ".", "?", "!", ":"])
        if rng.random() < 0.05:
            sentence = '"' + sentence + '"'
        pool.append(sentence)
    return pool


def text_of(rng, pool, length):
    parts = []
    size = 0
    while size < length:
        sentence = pool[rng.randrange(len(pool))]
        parts.append(sentence)
        size += len(sentence) + 1
        roll = rng.random()
        if roll < 0.08:
            parts.append("\n\n")
        elif roll < 0.12:
            parts.append("\n- ")
        else:
            parts.append(" ")
    return "".join(parts).strip()


def lognormal_length(rng, mean, sigma, cap):
    # mean of a log-normal = exp(mu + sigma^2 / 2)
    mu = math.log(mean) - sigma * sigma / 2
    return max(1, min(cap, int(rng.lognormvariate(mu, sigma))))


def conversation(rng, pool, index, human_mean, gpt_mean):
    turns = []
    if rng.random() < 0.02:
        turns.append({"from": "system", "value": text_of(rng, pool, lognormal_length(rng, 300, 0.8, 4000))})
    pairs = 1 + min(int(rng.expovariate(1 / 2.5)), 40)
    starts_with_gpt = rng.random() < 0.05  # a later part of a split conversation
    if starts_with_gpt:
        turns.append({"from": "gpt", "value": text_of(rng, pool, lognormal_length(rng, gpt_mean, 0.9, 60000))})
    for p in range(pairs):
        turns.append({"from": "human", "value": text_of(rng, pool, lognormal_length(rng, human_mean, 1.3, 40000))})
        if p < pairs - 1 or rng.random() < 0.9:
            turns.append({"from": "gpt", "value": text_of(rng, pool, lognormal_length(rng, gpt_mean, 0.9, 60000))})
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    ident = "".join(rng.choice(alphabet) for _ in range(7)) + "_" + str(index % 4)
    return {"id": ident, "conversations": turns}


def human_bytes(obj, ascii_only):
    return sum(
        len(json.dumps(t["value"], ensure_ascii=ascii_only).encode()) for t in obj["conversations"] if t["from"] == "human"
    )


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text[-1].upper() in units:
        return int(float(text[:-1]) * units[text[-1].upper()])
    return int(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the JSON array file")
    ap.add_argument("--size", default="1G", help="stop after this many bytes (suffix K, M, G)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--human-share", type=float, default=0.20, help="human turns' share of the text")
    ap.add_argument("--ascii-share", type=float, default=0.3, help="conversations written with \\u escapes")
    ap.add_argument("--jsonl", help="also write the same conversations as JSON Lines")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    pool = make_pool(rng, 8192)
    human_mean = 450
    # Fewer gpt turns than human ones (some conversations end on a question), plus the
    # layout around each text: 0.95 was found by measuring the share it gives.
    gpt_mean = human_mean * (1 - args.human_share) / args.human_share / 0.95
    limit = parse_size(args.size)
    written = 1  # the opening "["
    human = count = 0
    lines = open(args.jsonl, "w", encoding="utf-8", newline="\n") if args.jsonl else None
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        out.write("[")
        while written < limit:
            obj = conversation(rng, pool, count, human_mean, gpt_mean)
            ascii_only = rng.random() < args.ascii_share
            # The published file's layout: json.dump(data, indent=2), each element two spaces in.
            text = json.dumps(obj, indent=2, ensure_ascii=ascii_only).replace("\n", "\n  ")
            chunk = ("\n  " if count == 0 else ",\n  ") + text
            out.write(chunk)
            written += len(chunk.encode())
            human += human_bytes(obj, ascii_only)
            if lines:
                lines.write(json.dumps(obj, ensure_ascii=ascii_only) + "\n")
            count += 1
        out.write("\n]")
        written += 2
    if lines:
        lines.close()
    print(f"{args.out}: {written} bytes, {count} conversations, human turns {100.0 * human / written:.1f} % of the bytes")


if __name__ == "__main__":
    sys.exit(main())
