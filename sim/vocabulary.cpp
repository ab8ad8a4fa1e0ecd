#include "vocabulary.h"

namespace kssim {

namespace {
// Word lists written for the simulator. Turkish and Japanese entries make the
// streams carry multi-byte UTF-8, which clients must not split or re-encode.
const char* const kWords[] = {
    "the",
    "model",
    "answer",
    "is",
    "a",
    "of",
    "and",
    "to",
    "in",
    "that",
    "for",
    "with",
    "value",
    "first",
    "then",
    "we",
    "can",
    "see",
    "because",
    "result",
    "number",
    "step",
    "check",
    "so",
    "it",
    "this",
    "which",
    "when",
    "each",
    "time",
    "token",
    "batch",
    "queue",
    "server",
    "request",
    "latency",
    "cache",
    "prompt",
    "output",
    "memory",
    "GPU",
    "three",
    "seven",
    "twelve",
    "sum",
    "equals",
    "function",
    "returns",
    "list",
    "string",
    "loop",
    "index",
    "error",
    "city",
    "river",
    "capital",
    "summary",
    "reason",
    "therefore",
    "however",
    "likely",
    "exactly",
    "about",
    "note",
    ",",
    ".",
    ":",
    ";",
    "(",
    ")",
    "=",
    "+",
    "42",
    "2026",
    "3.14",
    "x",
    "y",
    "n",
    "merhaba",
    "dünya",
    "çünkü",
    "öğrenci",
    "şehir",
    "ılık",
    "güzel",
    "değer",
    "sonuç",
    "İstanbul",
    "ağaç",
    "göl",
    "kitap",
    "hızlı",
    "yavaş",
    "çok",
    "sayı",
    "adım",
    "önce",
    "sonra",
    "日本",
    "東京",
    "答え",
    "モデル",
    "計算",
    "結果",
    "こんにちは",
    "ありがとう",
    "速度",
    "待ち行列",
    "推論",
    "文章",
    "山",
    "川",
    "時間",
    "数字",
    "確認",
    "要約",
    "キャッシュ",
    "トークン",
    "naïve",
    "café",
    "über",
    "→",
    "≈",
    "✓",
};
} // namespace

QByteArray jsonEscape(const QByteArray& utf8)
{
    QByteArray out;
    out.reserve(utf8.size() + 2);
    for (char c : utf8) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += QByteArray("\\u00")
                    + QByteArray::number(static_cast<unsigned char>(c), 16).rightJustified(2, '0');
            else
                out += c;
        }
    }
    return out;
}

Vocabulary::Vocabulary()
{
    for (const char* w : kWords) {
        const QByteArray word = QByteArray(" ") + QByteArray(w);
        m_raw.push_back(word);
        m_escaped.push_back(jsonEscape(word));
    }
}

const Vocabulary& Vocabulary::instance()
{
    static const Vocabulary vocabulary;
    return vocabulary;
}

} // namespace kssim
