#include "completionsession.h"

#include "simconnection.h"
#include "vocabulary.h"

#include <nlohmann/json.hpp>

namespace kssim {

namespace {
ApiError engineFailure()
{
    return { 500, QStringLiteral("simulated engine failure (--error-event)"), QStringLiteral("InternalServerError"),
        {} };
}
// A non-streaming chat answer that is a tool call: message.tool_calls, content null.
QByteArray withToolCall(const QByteArray& body, const QByteArray& id, const QByteArray& name, const QByteArray& args)
{
    nlohmann::json j = nlohmann::json::parse(body.toStdString());
    nlohmann::json& message = j["choices"][0]["message"];
    message["content"] = nullptr;
    message["tool_calls"] = nlohmann::json::array({ { { "id", id.toStdString() }, { "type", "function" },
        { "function", { { "name", name.toStdString() }, { "arguments", args.toStdString() } } } } });
    return QByteArray::fromStdString(j.dump());
}

ApiError shuttingDown()
{
    return { 503, QStringLiteral("server shutting down"), QStringLiteral("ServiceUnavailableError"), {} };
}
} // namespace

CompletionSession::CompletionSession(
    const SimProfile& profile, Setup setup, std::shared_ptr<TruthRecord> truth, SimConnection* connection)
    : m_profile(profile)
    , m_setup(std::move(setup))
    , m_connection(connection)
    , m_output(profile, m_setup.seed, m_setup.outputTokens)
    , m_formatter(m_setup.request.endpoint, truth->id, m_setup.created, m_setup.request.model)
    , m_truth(std::move(truth))
    , m_wireRng(quint64(m_setup.wireSeed))
    , m_faultAt(m_setup.outputTokens / 2)
{
}

void CompletionSession::start()
{
    if (!m_setup.request.stream || !m_connection)
        return;
    m_connection->beginStream();
    if (m_setup.request.endpoint == Endpoint::Chat)
        sendEvent(m_formatter.roleChunk(), 0);
}

void CompletionSession::onAdmitted(const Admission& admission, std::int64_t stepStartUs)
{
    m_output.setPrefixCacheHit(admission.repeatedPrompt);
    m_truth->prefixCacheHit = admission.prefixCacheHit;
    m_truth->cachedTokens = admission.cachedTokens;
    m_truth->admittedUs = stepStartUs;
}

void CompletionSession::sendEvent(const QByteArray& payload, int tokens)
{
    const QByteArray eol = m_setup.wire.crlf ? "\r\n" : "\n";
    if (m_setup.wire.comments && m_eventsSent % 8 == 0)
        m_connection->sendChunk(": keep-alive" + eol + eol);
    ++m_eventsSent;
    const QByteArray framed = "data: " + payload + eol + eol;
    std::vector<qsizetype> cuts;
    if (m_setup.wire.splitWrites && framed.size() > 2) {
        const int pieces = 1 + int(m_wireRng.bounded(2));
        for (int i = 0; i < pieces; ++i)
            cuts.push_back(1 + qsizetype(m_wireRng.bounded(quint32(framed.size() - 1))));
        std::sort(cuts.begin(), cuts.end());
    }
    SimConnection::WrittenCallback onWritten;
    if (tokens > 0) {
        onWritten = [truth = m_truth, tokens](std::int64_t us) {
            truth->tokenUs.push_back(us);
            truth->tokensWritten += tokens;
        };
    }
    m_connection->sendChunk(framed, cuts, std::move(onWritten));
}

SimConnection::WrittenCallback CompletionSession::onLastByteWritten() const
{
    return [truth = m_truth, done = m_setup.onComplete](std::int64_t us) {
        truth->endUs = us;
        done();
    };
}

void CompletionSession::sendDone()
{
    sendEvent("[DONE]", 0);
    m_connection->endStream(onLastByteWritten());
}

CompletionSession::State CompletionSession::injectMidStreamFault(std::int64_t nowUs)
{
    switch (m_setup.fault) {
    case Fault::DisconnectMid:
        m_truth->endUs = nowUs;
        m_connection->abortNow();
        return State::Aborted;
    case Fault::ErrorEvent:
        if (m_setup.request.stream) {
            sendEvent(errorBody(engineFailure()), 0);
            sendDone();
        } else {
            m_truth->status = 500;
            const ApiError error = engineFailure();
            m_connection->sendResponse(500, "application/json", errorBody(error), {}, onLastByteWritten());
        }
        return State::Aborted;
    case Fault::Malformed:
        if (m_setup.request.stream)
            sendEvent("{\"id\":\"" + m_truth->id + "\",\"choices\":[{\"index\":0,\"text\":", 0);
        return State::Running;
    case Fault::Stall:
        m_connection->pauseUntil(nowUs + std::int64_t(m_setup.stallMs) * 1000);
        return State::Running;
    case Fault::None:
    case Fault::Http500:
    case Fault::Http429:
        break;
    }
    return State::Running;
}

CompletionSession::State CompletionSession::onToken(const TokenEmission& emission, int batchSize, std::int64_t nowUs)
{
    if (!m_connection || !m_connection->isOpen())
        return State::Aborted;
    const int first = emission.tokenIndex;
    if (m_setup.fault != Fault::None && first <= m_faultAt && m_faultAt < first + emission.count) {
        const State state = injectMidStreamFault(nowUs);
        if (state != State::Running)
            return state;
    }
    // Tokens of one step go out as one chunk, as vLLM streams speculative
    // decoding; a chunk holds one channel (reasoning or answer), a tool-call
    // token is a chunk of its own.
    QByteArray text;
    int pending = 0;
    bool pendingReasoning = false;
    auto flush = [&](const char* finishReason) {
        if (pending == 0)
            return;
        if (m_setup.request.stream) {
            sendEvent(m_formatter.tokenChunk(text, pendingReasoning, finishReason), pending);
        } else {
            m_truth->tokenUs.push_back(nowUs);
            m_truth->tokensWritten += pending;
        }
        text.clear();
        pending = 0;
    };
    for (int i = 0; i < emission.count; ++i) {
        const OutputStream::Token token = m_output.next(batchSize);
        const bool last = emission.last && i + 1 == emission.count;
        const char* finishReason = nullptr;
        const bool toolToken = m_setup.request.toolCall && !token.reasoning;
        if (last) {
            const bool hitLimit = m_setup.request.ignoreEos || m_setup.outputTokens >= m_setup.request.maxTokens;
            finishReason = toolToken ? "tool_calls" : hitLimit ? "length" : "stop";
            m_truth->finishReason = finishReason;
        }
        ++(token.reasoning ? m_truth->reasoningTokens : toolToken ? m_truth->toolCallEvents : m_truth->answerTokens);
        if (pending > 0 && (toolToken || token.reasoning != pendingReasoning))
            flush(nullptr);
        if (toolToken) {
            if (m_setup.request.stream)
                sendEvent(toolCallChunk(*token.raw, finishReason), 1);
            else {
                m_toolArguments += toolArgumentsFragment(*token.raw, last);
                m_truth->tokenUs.push_back(nowUs);
                ++m_truth->tokensWritten;
            }
            continue;
        }
        if (!m_setup.request.stream)
            (token.reasoning ? m_reasoning : m_content) += *token.raw;
        text += *token.escaped;
        pendingReasoning = token.reasoning;
        ++pending;
        if (last)
            flush(finishReason);
    }
    flush(nullptr);
    return emission.last ? finish(nowUs) : State::Running;
}

QByteArray CompletionSession::toolArgumentsFragment(const QByteArray& word, bool last)
{
    // The arguments are one JSON object built word by word: {"input": "w1 w2 ... wn"}.
    QByteArray fragment = m_toolWords == 0 ? QByteArray("{\"input\": \"") : QByteArray(" ");
    fragment += jsonEscape(word.trimmed());
    ++m_toolWords;
    if (last)
        fragment += "\"}";
    return fragment;
}

QByteArray CompletionSession::toolCallChunk(const QByteArray& word, const char* finishReason)
{
    if (m_truth->toolCallEvents == 1) {
        // The call opens (vLLM: id, type and name before any argument), one call per answer.
        m_truth->toolCalls = 1;
        if (!finishReason)
            return m_formatter.toolCallOpenChunk("chatcmpl-tool-" + QByteArray::number(qulonglong(m_setup.engineId)),
                jsonEscape(m_setup.request.toolName));
    }
    return m_formatter.toolCallArgumentsChunk(
        jsonEscape(toolArgumentsFragment(word, finishReason != nullptr)), finishReason);
}

CompletionSession::State CompletionSession::finish(std::int64_t)
{
    const int prompt = m_setup.request.promptTokens;
    const int completion = m_setup.outputTokens;
    if (m_setup.request.stream) {
        if (m_setup.request.includeUsage)
            sendEvent(m_formatter.usageChunk(prompt, completion), 0);
        sendDone();
        return State::Finished;
    }
    if (!m_toolArguments.isEmpty())
        m_truth->toolCalls = 1;
    QByteArray body
        = m_formatter.fullResponse(m_content, m_reasoning, m_truth->finishReason.constData(), prompt, completion);
    if (!m_toolArguments.isEmpty())
        body = withToolCall(body, "chatcmpl-tool-" + QByteArray::number(qulonglong(m_setup.engineId)),
            m_setup.request.toolName, m_toolArguments);
    if (m_setup.fault == Fault::Malformed)
        body.chop(body.size() / 2);
    m_connection->sendResponse(200, "application/json", body, {}, onLastByteWritten());
    return State::Finished;
}

void CompletionSession::onClientGone(std::int64_t nowUs)
{
    if (m_truth->endUs < 0)
        m_truth->endUs = nowUs;
    if (m_truth->fault == QLatin1String("none"))
        m_truth->fault = QStringLiteral("client_disconnected");
}

void CompletionSession::abortForShutdown(std::int64_t nowUs)
{
    m_truth->fault = QStringLiteral("server_shutdown");
    m_truth->endUs = nowUs;
    if (!m_connection || !m_connection->isOpen())
        return;
    if (m_setup.request.stream) {
        sendEvent(errorBody(shuttingDown()), 0);
        sendDone();
    } else {
        m_connection->sendResponse(503, "application/json", errorBody(shuttingDown()));
    }
    m_connection->closeWhenFlushed();
}

} // namespace kssim
