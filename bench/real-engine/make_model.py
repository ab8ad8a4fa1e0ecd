#!/usr/bin/python3
"""Write a tiny random-weight llama GGUF that llama-server loads and serves.

Only the shape matters: the weights are random, so the text is gibberish, but
the work per token (one matrix-vector product per weight matrix) is what a real
model of that shape costs. The tokenizer, vocab, scores and token types are
copied from a vocab-only GGUF (llama.cpp's models/ggml-vocab-llama-spm.gguf,
32000 SentencePiece tokens), and a plain chat template is added so
/v1/chat/completions works too.

Every sampled token is a normal text piece, so each token is one SSE event and
no request ends early: dimension 0 of the residual stream is held at a
constant (token_embd column 0 = 1, the rows of attn_output and ffn_down that
write into it are 0), so after the final RMS norm it is always positive; the
LM-head rows of the control tokens (<s>, </s>, EOS included), <unk> and the
256 byte tokens are 0 except -BAN in that dimension, which gives them a logit
far below every text piece (whose rows are 0 there). EOS therefore cannot be
sampled even without "ignore_eos", greedy or not.

Uses the llama.cpp bundle's gguf-py (--gguf-py) and numpy; Debian's
/usr/bin/python3 with python3-numpy and python3-yaml is enough.

usage: make_model.py --gguf-py DIR --vocab VOCAB.gguf --out OUT.gguf
                     [--n-layer 1] [--n-embd 2048] [--n-ff 5632] [--n-head 16]
                     [--n-head-kv 4] [--n-ctx 4096] [--seed 0]
"""

import argparse
import sys
import time

import numpy as np

BAN = 64.0  # logit scale pushing the banned tokens down (text logits have std ~1)

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf-py", required=True, help="llama.cpp's gguf-py directory")
    ap.add_argument("--vocab", required=True, help="vocab-only GGUF to copy the tokenizer from")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n-layer", type=int, default=1)
    ap.add_argument("--n-embd", type=int, default=2048)
    ap.add_argument("--n-ff", type=int, default=5632)
    ap.add_argument("--n-head", type=int, default=16)
    ap.add_argument("--n-head-kv", type=int, default=4)
    ap.add_argument("--n-ctx", type=int, default=4096, help="training context length in the metadata")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default=None)
    a = ap.parse_args()

    sys.path.insert(0, a.gguf_py)
    import gguf  # noqa: E402  (the bundle's own gguf-py)

    if a.n_embd % a.n_head or a.n_head % a.n_head_kv:
        ap.error("n_embd must be a multiple of n_head, and n_head of n_head_kv")
    head_dim = a.n_embd // a.n_head
    n_embd_kv = head_dim * a.n_head_kv

    t0 = time.monotonic()
    r = gguf.GGUFReader(a.vocab)

    def field(name):
        f = r.fields[name]
        return f.contents()

    tokens = field("tokenizer.ggml.tokens")
    scores = field("tokenizer.ggml.scores")
    types = field("tokenizer.ggml.token_type")
    n_vocab = len(tokens)
    banned = np.array([i for i, t in enumerate(types) if t != gguf.TokenType.NORMAL], dtype=np.int64)

    rng = np.random.default_rng(a.seed)

    def rand(rows, cols, scale):
        m = rng.standard_normal((rows, cols), dtype=np.float32)
        m *= np.float32(scale)
        return m

    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name(a.name or f"knobscope-tiny-{a.n_layer}x{a.n_embd}")
    w.add_vocab_size(n_vocab)
    w.add_context_length(a.n_ctx)
    w.add_embedding_length(a.n_embd)
    w.add_block_count(a.n_layer)
    w.add_feed_forward_length(a.n_ff)
    w.add_head_count(a.n_head)
    w.add_head_count_kv(a.n_head_kv)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    w.add_tokenizer_model(field("tokenizer.ggml.model"))
    w.add_tokenizer_pre(field("tokenizer.ggml.pre"))
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(int(field("tokenizer.ggml.bos_token_id")))
    w.add_eos_token_id(int(field("tokenizer.ggml.eos_token_id")))
    w.add_unk_token_id(int(field("tokenizer.ggml.unknown_token_id")))
    w.add_add_bos_token(bool(field("tokenizer.ggml.add_bos_token")))
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)

    # numpy shape is (out, in); GGUF stores it as ne = (in, out).
    emb = rand(n_vocab, a.n_embd, 1.0)
    emb[:, 0] = 1.0  # the constant dimension (see the docstring)
    w.add_tensor("token_embd.weight", emb)
    del emb
    ones = np.ones(a.n_embd, dtype=np.float32)
    s_in = 1.0 / np.sqrt(a.n_embd)
    for i in range(a.n_layer):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", ones.copy())
        w.add_tensor(p + "attn_q.weight", rand(a.n_embd, a.n_embd, s_in))
        w.add_tensor(p + "attn_k.weight", rand(n_embd_kv, a.n_embd, s_in))
        w.add_tensor(p + "attn_v.weight", rand(n_embd_kv, a.n_embd, s_in))
        wo = rand(a.n_embd, a.n_embd, s_in)
        wo[0, :] = 0.0
        w.add_tensor(p + "attn_output.weight", wo)
        w.add_tensor(p + "ffn_norm.weight", ones.copy())
        w.add_tensor(p + "ffn_gate.weight", rand(a.n_ff, a.n_embd, s_in))
        w.add_tensor(p + "ffn_up.weight", rand(a.n_ff, a.n_embd, s_in))
        down = rand(a.n_embd, a.n_ff, 1.0 / np.sqrt(a.n_ff))
        down[0, :] = 0.0
        w.add_tensor(p + "ffn_down.weight", down)
    w.add_tensor("output_norm.weight", ones.copy())
    head = rand(n_vocab, a.n_embd, s_in)
    head[:, 0] = 0.0
    head[banned, :] = 0.0
    head[banned, 0] = -BAN
    w.add_tensor("output.weight", head)
    del head

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(
        f"{a.out}: llama {a.n_layer} layer(s), n_embd {a.n_embd}, n_ff {a.n_ff}, "
        f"{a.n_head}/{a.n_head_kv} heads, vocab {n_vocab} ({len(banned)} banned), F32, "
        f"{time.monotonic() - t0:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
