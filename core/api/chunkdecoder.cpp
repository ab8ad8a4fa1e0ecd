#include "api/chunkdecoder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

namespace {

using nlohmann::json;

// Decodes one event with nlohmann's SAX interface, keeping only the fields
// docs/metrics.md needs. Building a DOM per event cost half the client's CPU
// (callgrind, docs/PERFORMANCE.md); this reads the same grammar without the tree.
class ChunkSax {
public:
    using number_integer_t = json::number_integer_t;
    using number_unsigned_t = json::number_unsigned_t;
    using number_float_t = json::number_float_t;
    using string_t = json::string_t;
    using binary_t = json::binary_t;

    ChunkSax(ChunkInfo& info, ApiKind api)
        : m_info(info)
        , m_api(api)
    {
    }

    bool null() { return scalar(Kind::Null, nullptr, 0); }
    bool boolean(bool) { return scalar(Kind::Other, nullptr, 0); }
    bool number_integer(number_integer_t v) { return scalar(Kind::Integer, nullptr, v); }
    bool number_unsigned(number_unsigned_t v)
    {
        return scalar(Kind::Integer, nullptr, number_integer_t(std::min<number_unsigned_t>(v, INT64_MAX)));
    }
    bool number_float(number_float_t v, const string_t&) { return scalar(Kind::Float, nullptr, 0, v); }
    bool string(string_t& s) { return scalar(Kind::String, &s, 0); }
    bool binary(binary_t&) { return scalar(Kind::Other, nullptr, 0); }

    bool start_object(std::size_t)
    {
        onValueStart(Kind::Object);
        m_frames.push_back({ false, {}, -1 });
        return true;
    }
    bool key(string_t& k)
    {
        m_frames.back().key = k;
        return true;
    }
    bool end_object()
    {
        m_frames.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        onValueStart(Kind::Array);
        m_frames.push_back({ true, {}, -1 });
        return true;
    }
    bool end_array()
    {
        if (m_inToolCalls && m_frames.size() == m_inToolCalls)
            m_inToolCalls = 0; // the tool_calls array itself ends
        m_frames.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

    bool topLevelIsObject() const { return m_topIsObject; }

private:
    enum class Kind { Null, Integer, Float, String, Object, Array, Other };
    struct Frame {
        bool array;
        std::string key; ///< current key (objects)
        int index; ///< current element (arrays)
    };

    // Is the value about to start at frames[0..depth) + key the given path?
    // Paths are written as keys, with "#0" for the first array element.
    bool at(std::initializer_list<const char*> path) const
    {
        if (m_frames.size() != path.size())
            return false;
        std::size_t i = 0;
        for (const char* part : path) {
            const Frame& f = m_frames[i++];
            if (f.array ? (part[0] != '#' || f.index != 0) : f.key != part)
                return false;
        }
        return true;
    }

    void onValueStart(Kind kind)
    {
        if (m_frames.empty()) {
            m_topIsObject = kind == Kind::Object;
            return;
        }
        if (m_frames.back().array)
            ++m_frames.back().index;
        if (kind == Kind::Null)
            return;
        if (at({ "error" }))
            m_info.kind = ChunkInfo::Kind::Error;
        else if (at({ "choices", "#0", "finish_reason" }))
            m_info.finished = true;
        else if (kind == Kind::Array && at({ "choices", "#0", "delta", "tool_calls" }))
            m_inToolCalls = m_frames.size() + 1;
        else if (m_inToolCalls && m_frames.size() == m_inToolCalls) {
            m_info.hasToken = true; // an element of a non-empty tool_calls array
            m_info.toolCalls.emplace_back();
        }
    }

    bool scalar(Kind kind, string_t* text, number_integer_t number, number_float_t real = 0)
    {
        onValueStart(kind);
        if (m_frames.empty())
            return true;
        if (kind == Kind::String) {
            if (inToolCall("id")) {
                m_info.toolCalls.back().id = *text;
            } else if (at({ "error" })) {
                m_info.errorMessage = QString::fromStdString(*text);
            } else if (at({ "error", "message" })) {
                m_info.errorMessage = QString::fromStdString(*text);
            } else if (!text->empty()) {
                const bool completionsText = m_api == ApiKind::Completions && at({ "choices", "#0", "text" });
                const bool chatContent = m_api == ApiKind::Chat && at({ "choices", "#0", "delta", "content" });
                const bool reasoning = m_api == ApiKind::Chat
                    && (at({ "choices", "#0", "delta", "reasoning_content" })
                        || at({ "choices", "#0", "delta", "reasoning" }));
                if (completionsText || chatContent) {
                    m_info.content.append(text->data(), qsizetype(text->size()));
                    m_info.hasContent = m_info.hasToken = true;
                } else if (reasoning) {
                    m_info.reasoning.append(text->data(), qsizetype(text->size()));
                    m_info.hasToken = true;
                }
            }
        } else if (kind == Kind::Integer) {
            if (at({ "usage", "completion_tokens" }))
                m_info.completionTokens = int(number);
            else if (at({ "usage", "prompt_tokens" }))
                m_info.promptTokens = int(number);
            else if (at({ "usage", "completion_tokens_details", "reasoning_tokens" }))
                m_info.reasoningTokens = int(std::clamp<number_integer_t>(number, -1, INT32_MAX));
            else if (inToolCall("index"))
                m_info.toolCalls.back().index = int(std::clamp<number_integer_t>(number, -1, INT32_MAX));
            else if (m_frames.size() == 2 && m_frames[0].key == "timings")
                timing(double(number), number);
        } else if (kind == Kind::Float && m_frames.size() == 2 && m_frames[0].key == "timings") {
            timing(real, -1);
        }
        return true;
    }

    // Is the value about to start a member `key` of a tool_calls element object?
    bool inToolCall(const char* key) const
    {
        return m_inToolCalls && m_frames.size() == m_inToolCalls + 1 && !m_frames.back().array
            && !m_info.toolCalls.empty() && m_frames.back().key == key;
    }

    // One value of llama.cpp's `timings`: milliseconds may come as integers or
    // floats, counts as integers only; negative or non-finite values are not timings.
    void timing(double real, number_integer_t count)
    {
        if (m_frames[0].array || !std::isfinite(real) || real < 0)
            return;
        const std::string& key = m_frames[1].key;
        ChunkInfo::Timings& t = m_info.timings;
        if (key == "prompt_ms")
            t.promptMs = real;
        else if (key == "predicted_ms")
            t.predictedMs = real;
        else if (count < 0 || count > INT32_MAX)
            return;
        else if (key == "prompt_n")
            t.promptN = int(count);
        else if (key == "predicted_n")
            t.predictedN = int(count);
        else if (key == "cache_n")
            t.cacheN = int(count);
    }

    ChunkInfo& m_info;
    ApiKind m_api;
    std::vector<Frame> m_frames;
    std::size_t m_inToolCalls = 0;
    bool m_topIsObject = false;
};

} // namespace

ChunkInfo decodeChunk(const QByteArray& payload, ApiKind api)
{
    ChunkInfo info;
    if (payload == "[DONE]") {
        info.kind = ChunkInfo::Kind::Done;
        return info;
    }
    ChunkSax sax(info, api);
    const bool parsed = json::sax_parse(payload.begin(), payload.end(), &sax);
    if (!parsed || !sax.topLevelIsObject()) {
        ChunkInfo bad;
        bad.kind = ChunkInfo::Kind::Undecodable;
        bad.errorMessage = QStringLiteral("event is not a JSON object: ") + QString::fromUtf8(payload.left(80));
        return bad;
    }
    if (info.kind == ChunkInfo::Kind::Error) {
        if (info.errorMessage.isEmpty())
            info.errorMessage = QStringLiteral("error event: ") + QString::fromUtf8(payload.left(200));
        info.hasToken = info.hasContent = false;
    }
    return info;
}

} // namespace ks
