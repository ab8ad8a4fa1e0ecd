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
        { "max_tokens", r.maxTokens },
        { "output_tokens", r.outputTokens },
        { "tokens_written", r.tokensWritten },
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

void TruthLog::close()
{
    m_flushTimer.stop();
    if (m_file.isOpen()) {
        m_file.flush();
        m_file.close();
    }
}

} // namespace kssim
