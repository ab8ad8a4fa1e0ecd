#pragma once

#include "store/requestrecord.h"

#include <QString>

#include <cstddef>
#include <memory>

namespace ks {

/// The fast path of the run-file reader: simdjson On-Demand over a request
/// line of the writer's own shape (docs/PERFORMANCE.md, "Reading a run file").
/// It accepts a line only when every field is known, of its documented type and
/// in range, and the line is one complete JSON object; for anything else
/// parse() returns false and the caller reads the line through
/// parseRequestLine(), the tolerant nlohmann path that names each problem. So
/// both paths give the same record for a line the fast path takes, and every
/// issue comes from one place.
class FastRequestParser {
public:
    FastRequestParser();
    ~FastRequestParser();
    FastRequestParser(const FastRequestParser&) = delete;
    FastRequestParser& operator=(const FastRequestParser&) = delete;

    /// Bytes that must be readable after the end of a line (simdjson reads
    /// whole 64-byte blocks); their content does not matter.
    static const std::size_t kPadding;

    /// `capacity` counts the bytes readable from `line` on, at least
    /// size + kPadding. `sameRun`, when equal to the run label, is shared.
    bool parse(const char* line, std::size_t size, std::size_t capacity, RequestRecord* record, const QString* sameRun);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace ks
