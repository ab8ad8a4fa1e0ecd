#include "truthlog.h"

#include <nlohmann/json.hpp>

namespace kssim {

TruthLog::TruthLog(QObject* parent)
    : QObject(parent)
{
    m_flushTimer.setInterval(100);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] { m_file.flush(); });
}

bool TruthLog::open(const QString& path, QString* error)
{
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = m_file.errorString();
        return false;
    }
    m_flushTimer.start();
    return true;
}

void TruthLog::append(const TruthRecord& r)
{
    if (!m_file.isOpen())
        return;
    nlohmann::json line = {
        { "id", r.id.toStdString() },
        { "client_request_id",
            r.clientRequestId.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(r.clientRequestId.toStdString()) },
        { "endpoint", r.endpoint.toStdString() },
        { "stream", r.stream },
        { "prompt_tokens", r.promptTokens },
        { "images", r.images },
        { "image_tokens", r.imageTokens },
        { "image_bytes", r.imageBytes },
        { "max_tokens", r.maxTokens },
        { "output_tokens", r.outputTokens },
        { "tokens_written", r.tokensWritten },
        { "reasoning_tokens", r.reasoningTokens },
        { "answer_tokens", r.answerTokens },
        { "tool_call_events", r.toolCallEvents },
        { "tool_calls", r.toolCalls },
        { "spec_drafts", r.specDrafts },
        { "spec_draft_tokens", r.specDraftTokens },
        { "spec_accepted_tokens", r.specAcceptedTokens },
        { "prefix_cache_hit", r.prefixCacheHit },
        { "cached_tokens", r.cachedTokens },
        { "fault", r.fault.toStdString() },
        { "status", r.status },
        { "finish_reason",
            r.finishReason.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(r.finishReason.toStdString()) },
        { "arrival_us", r.arrivalUs },
        { "admitted_us", r.admittedUs },
        { "first_token_us", r.tokenUs.empty() ? -1 : r.tokenUs.front() },
        { "token_us", r.tokenUs },
        { "end_us", r.endUs },
    };
    if (!r.prompt.isNull())
        line["prompt"] = r.prompt.toStdString();
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
    m_file.write(text.data(), qint64(text.size()));
}

namespace {

QByteArray bytesOf(const nlohmann::json& line, const char* key)
{
    const auto it = line.find(key);
    return it != line.end() && it->is_string() ? QByteArray::fromStdString(it->get<std::string>()) : QByteArray();
}

template <typename T> T numberOf(const nlohmann::json& line, const char* key, T fallback)
{
    const auto it = line.find(key);
    return it != line.end() && it->is_number() ? it->get<T>() : fallback;
}

} // namespace

std::vector<TruthRecord> readTruthLog(const QString& path, QString* error)
{
    std::vector<TruthRecord> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = file.errorString();
        return out;
    }
    while (!file.atEnd()) {
        const QByteArray text = file.readLine();
        const auto line = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
        if (line.is_discarded() || !line.is_object())
            continue;
        TruthRecord r;
        r.id = bytesOf(line, "id");
        r.clientRequestId = bytesOf(line, "client_request_id");
        r.endpoint = bytesOf(line, "endpoint");
        r.stream = line.value("stream", nlohmann::json()).is_boolean() && line["stream"].get<bool>();
        r.promptTokens = numberOf(line, "prompt_tokens", r.promptTokens);
        r.images = numberOf(line, "images", r.images);
        r.imageTokens = numberOf(line, "image_tokens", r.imageTokens);
        r.imageBytes = numberOf(line, "image_bytes", r.imageBytes);
        r.maxTokens = numberOf(line, "max_tokens", r.maxTokens);
        r.outputTokens = numberOf(line, "output_tokens", r.outputTokens);
        r.tokensWritten = numberOf(line, "tokens_written", r.tokensWritten);
        r.reasoningTokens = numberOf(line, "reasoning_tokens", r.reasoningTokens);
        r.answerTokens = numberOf(line, "answer_tokens", r.answerTokens);
        r.toolCallEvents = numberOf(line, "tool_call_events", r.toolCallEvents);
        r.toolCalls = numberOf(line, "tool_calls", r.toolCalls);
        r.specDrafts = numberOf(line, "spec_drafts", r.specDrafts);
        r.specDraftTokens = numberOf(line, "spec_draft_tokens", r.specDraftTokens);
        r.specAcceptedTokens = numberOf(line, "spec_accepted_tokens", r.specAcceptedTokens);
        r.prefixCacheHit
            = line.value("prefix_cache_hit", nlohmann::json()).is_boolean() && line["prefix_cache_hit"].get<bool>();
        r.cachedTokens = numberOf(line, "cached_tokens", r.cachedTokens);
        r.prompt = bytesOf(line, "prompt");
        if (line.contains("fault") && line["fault"].is_string())
            r.fault = QString::fromStdString(line["fault"].get<std::string>());
        r.status = numberOf(line, "status", r.status);
        r.finishReason = bytesOf(line, "finish_reason");
        r.arrivalUs = numberOf(line, "arrival_us", r.arrivalUs);
        r.admittedUs = numberOf(line, "admitted_us", r.admittedUs);
        if (const auto tokens = line.find("token_us"); tokens != line.end() && tokens->is_array())
            for (const auto& t : *tokens)
                if (t.is_number())
                    r.tokenUs.push_back(t.get<std::int64_t>());
        r.endUs = numberOf(line, "end_us", r.endUs);
        r.logged = true;
        out.push_back(std::move(r));
    }
    return out;
}

qint64 requestIndexOf(const TruthRecord& record)
{
    const qsizetype slash = record.clientRequestId.lastIndexOf('/');
    bool ok = false;
    const qint64 index = slash < 0 ? -1 : record.clientRequestId.mid(slash + 1).toLongLong(&ok);
    return ok ? index : -1;
}

void TruthLog::close()
{
    m_flushTimer.stop();
    if (m_file.isOpen()) {
        m_file.flush();
        m_file.close();
    }
}

} // namespace kssim
