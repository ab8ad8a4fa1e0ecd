#pragma once

#include <QByteArray>

#include <cstdint>
#include <vector>

namespace kssim {

/// The simulator's token texts: English, Turkish and Japanese words, each stored
/// raw (UTF-8) and pre-escaped for JSON so the per-token hot path only copies bytes.
class Vocabulary {
public:
    static const Vocabulary& instance();

    int size() const { return int(m_raw.size()); }
    const QByteArray& raw(std::uint64_t h) const { return m_raw[h % m_raw.size()]; }
    const QByteArray& jsonEscaped(std::uint64_t h) const { return m_escaped[h % m_escaped.size()]; }

private:
    Vocabulary();
    std::vector<QByteArray> m_raw;
    std::vector<QByteArray> m_escaped;
};

QByteArray jsonEscape(const QByteArray& utf8);

} // namespace kssim
