#include "store/requestlinefast.h"

#include "store/requesttable.h"
#include "store/runline.h"

#include <simdjson.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <string_view>

namespace ks {

namespace od = simdjson::ondemand;

struct FastRequestParser::State {
    od::parser parser;
};

const std::size_t FastRequestParser::kPadding = simdjson::SIMDJSON_PADDING;

FastRequestParser::FastRequestParser()
    : m_state(std::make_unique<State>())
{
}

FastRequestParser::~FastRequestParser() = default;

namespace {

bool hexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isNull(od::value& value)
{
    bool null = false;
    return value.is_null().get(null) == simdjson::SUCCESS && null;
}

// An integer field in [low, high]; a null leaves `out` as it is (absent).
bool integerField(od::value& value, qint64 low, qint64 high, qint64* out, bool* present = nullptr)
{
    if (isNull(value))
        return true;
    std::int64_t v = 0;
    if (value.get_int64().get(v) != simdjson::SUCCESS || v < low || v > high)
        return false;
    *out = v;
    if (present)
        *present = true;
    return true;
}

bool intField(od::value& value, qint64 low, qint64 high, int* out, bool* present = nullptr)
{
    qint64 v = *out;
    if (!integerField(value, low, high, &v, present))
        return false;
    *out = int(v);
    return true;
}

// A string field that needs no cut; null: absent.
bool textField(od::value& value, qsizetype limit, std::string_view* out, bool* present)
{
    *present = false;
    if (isNull(value))
        return true;
    if (value.get_string().get(*out) != simdjson::SUCCESS)
        return false;
    // UTF-8 bytes >= UTF-16 units: within the limit in bytes means no cut (else the slow path cuts and says so).
    if (limit > 0 && out->size() > std::size_t(limit))
        return false;
    *present = true;
    return true;
}

// A non-negative finite number (an integer is a number too); null: absent.
bool msField(od::value& value, double* out)
{
    if (isNull(value))
        return true;
    double v = 0;
    if (value.get_double().get(v) != simdjson::SUCCESS || !(v >= 0) || !std::isfinite(v))
        return false;
    *out = v;
    return true;
}

// The `server` object as the writer writes it; anything else is the tolerant path's.
bool serverField(od::value& value, ServerTimings* out)
{
    if (isNull(value))
        return true;
    od::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS)
        return false;
    for (auto field : object) {
        std::string_view key;
        od::value v;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS || field.value().get(v) != simdjson::SUCCESS)
            return false;
        bool fine = false;
        if (key == "prompt_ms")
            fine = msField(v, &out->promptMs);
        else if (key == "predicted_ms")
            fine = msField(v, &out->predictedMs);
        else if (key == "prompt_n")
            fine = intField(v, 0, INT_MAX, &out->promptN);
        else if (key == "predicted_n")
            fine = intField(v, 0, INT_MAX, &out->predictedN);
        else if (key == "cache_n")
            fine = intField(v, 0, INT_MAX, &out->cacheN);
        else if (key == "source") {
            std::string_view text;
            bool present = false;
            fine = textField(v, 0, &text, &present);
        }
        if (!fine)
            return false;
    }
    return true;
}

QString qstring(std::string_view v)
{
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}

} // namespace

bool FastRequestParser::parse(
    const char* line, std::size_t size, std::size_t capacity, RequestRecord* record, const QString* sameRun)
{
    std::vector<std::int32_t> gaps = std::move(record->itlUs); // keep its allocation from line to line
    gaps.clear();
    *record = RequestRecord();
    record->itlUs = std::move(gaps);
    RequestRecord& r = *record;
    od::document doc;
    if (m_state->parser.iterate(line, size, capacity).get(doc) != simdjson::SUCCESS)
        return false;
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS)
        return false;
    r.itlUs.reserve(32);
    bool isRequest = false, hasRun = false, hasId = false, hasSend = false, hasSched = false, hasOk = false,
         hasRepeat = false;
    for (auto field : object) {
        std::string_view key;
        od::value value;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS || field.value().get(value) != simdjson::SUCCESS)
            return false;
        std::string_view text;
        bool present = false;
        bool fine = true;
        switch (key.empty() ? 0 : key.front()) {
        case 't':
            if (key == "type") {
                fine = value.get_string().get(text) == simdjson::SUCCESS && text == "request";
                isRequest = fine;
            } else if (key == "t_send_us") {
                fine = !isNull(value) && integerField(value, 0, INT64_MAX, &r.tSendUs, &hasSend);
            } else if (key == "t_sched_us") {
                fine = integerField(value, 0, INT64_MAX, &r.tSchedUs, &hasSched);
            } else if (key == "t_wire_us") {
                fine = integerField(value, 0, INT64_MAX, &r.tWireUs);
            } else if (key == "t_headers_us") {
                fine = integerField(value, 0, INT64_MAX, &r.tHeadersUs);
            } else if (key == "ttft_us") {
                fine = integerField(value, 0, INT64_MAX, &r.ttftUs);
            } else if (key == "ttfc_us") {
                fine = integerField(value, 0, INT64_MAX, &r.ttfcUs);
            } else if (key == "tool_call_events") {
                fine = intField(value, 0, INT_MAX, &r.toolCallEvents);
            } else if (key == "tool_calls") {
                fine = intField(value, 0, INT_MAX, &r.toolCalls);
            } else {
                return false;
            }
            break;
        case 'r':
            if (key == "run") {
                fine = textField(value, kMaxLabelChars - 1, &text, &present) && present && !text.empty();
                if (fine) {
                    if (sameRun
                        && QAnyStringView::compare(*sameRun, QUtf8StringView(text.data(), qsizetype(text.size()))) == 0)
                        r.run = *sameRun;
                    else
                        r.run = qstring(text);
                    hasRun = true;
                }
            } else if (key == "reasoning_sha256") {
                fine = textField(value, 0, &text, &present);
                if (fine && present) {
                    fine = text.size() == 64 && std::all_of(text.begin(), text.end(), hexDigit);
                    r.reasoningSha256 = shaFromHex(QByteArrayView(text.data(), qsizetype(text.size())));
                }
            } else if (key == "reasoning_text") {
                fine = textField(value, 0, &text, &present);
                if (present)
                    r.reasoningText = QByteArray(text.data(), qsizetype(text.size()));
            } else if (key == "reasoning_tokens") {
                fine = intField(value, 0, INT_MAX, &r.reasoningTokens);
            } else if (key == "reasoning_tokens_source") {
                fine = textField(value, 0, &text, &present);
                r.reasoningTokensFromUsage = present && text == "usage";
            } else {
                return false;
            }
            break;
        case 'i':
            if (key == "id") {
                fine = !isNull(value) && integerField(value, 0, INT64_MAX, &r.id, &hasId);
            } else if (key == "itl_us") {
                if (isNull(value))
                    break;
                od::array list;
                r.itlUs.clear(); // a repeated key: the last one counts, as on the tolerant path
                if (value.get_array().get(list) != simdjson::SUCCESS)
                    return false;
                for (auto element : list) {
                    std::int64_t gap = 0;
                    if (element.get_int64().get(gap) != simdjson::SUCCESS || gap < 0 || gap > INT32_MAX)
                        return false;
                    r.itlUs.push_back(std::int32_t(gap));
                }
            } else if (key == "in_tokens") {
                fine = intField(value, 0, INT_MAX, &r.inTokens);
            } else if (key == "images") {
                fine = intField(value, 0, INT_MAX, &r.images);
            } else if (key == "image_bytes") {
                fine = integerField(value, 0, INT64_MAX, &r.imageBytes);
            } else {
                return false;
            }
            break;
        case 'e':
            if (key == "e2e_us") {
                fine = integerField(value, 0, INT64_MAX, &r.e2eUs);
            } else if (key == "error" || key == "error_detail") {
                fine = textField(value, kMaxDetailChars, &text, &present);
                if (present)
                    (key == "error" ? r.error : r.errorDetail) = qstring(text);
            } else {
                return false;
            }
            break;
        case 'o':
            if (key == "ok") {
                fine = value.get_bool().get(r.ok) == simdjson::SUCCESS;
                hasOk = fine;
            } else if (key == "out_tokens") {
                fine = intField(value, 0, INT_MAX, &r.outTokens);
            } else if (key == "out_tokens_source") {
                fine = textField(value, 0, &text, &present);
                r.outTokensFromUsage = present && text == "usage";
            } else if (key == "output_sha256") {
                fine = textField(value, 0, &text, &present);
                if (fine && present) {
                    fine = text.size() == 64 && std::all_of(text.begin(), text.end(), hexDigit);
                    r.outputSha256 = shaFromHex(QByteArrayView(text.data(), qsizetype(text.size())));
                }
            } else if (key == "output_text") {
                fine = textField(value, 0, &text, &present);
                if (present)
                    r.outputText = QByteArray(text.data(), qsizetype(text.size()));
            } else {
                return false;
            }
            break;
        case 'p':
            if (key == "probe") {
                fine = textField(value, kMaxLabelChars, &text, &present);
                if (present)
                    r.probe = qstring(text);
            } else if (key == "probe_repeat") {
                fine = intField(value, 0, INT_MAX, &r.probeRepeat, &hasRepeat);
            } else {
                return false;
            }
            break;
        case 's':
            if (key == "status") {
                fine = intField(value, 0, 999, &r.status);
            } else if (key == "server") {
                r.server = ServerTimings(); // a repeated key: the last one counts, as on the tolerant path
                fine = serverField(value, &r.server);
            } else {
                return false;
            }
            break;
        case 'a':
            if (key != "answer_tokens")
                return false;
            fine = intField(value, 0, INT_MAX, &r.answerTokens);
            break;
        case 'w':
            if (key != "warmup")
                return false;
            if (!isNull(value))
                fine = value.get_bool().get(r.warmup) == simdjson::SUCCESS;
            break;
        default:
            return false; // a field the writer does not write: the tolerant path ignores it
        }
        if (!fine)
            return false;
    }
    // One whole object and nothing after it (the tolerant path rejects trailing content).
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
        return false;
    if (!isRequest || !hasRun || !hasId || !hasSend || !hasOk)
        return false;
    if (!hasSched)
        r.tSchedUs = r.tSendUs;
    if (!hasRepeat)
        r.probeRepeat = r.probe.isEmpty() ? -1 : 0;
    return true;
}

} // namespace ks
