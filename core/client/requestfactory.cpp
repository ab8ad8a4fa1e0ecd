#include "client/requestfactory.h"

#include "client/httpconnection.h"
#include "workload/syntheticprompt.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

namespace ks {

namespace {
// Survives JSON escaping unchanged and never occurs in a prompt's escaped text
// (a prompt's own quotes are escaped, these are not).
constexpr const char* kImageMarker = "@@knobscope-image@@";

// Replaces the markers, in order, by the messages' data URLs: one pass of appends,
// so a body with megabytes of images costs a copy, never an encode.
QByteArray spliceImages(const QByteArray& text, const PromptTurn& turn)
{
    const QByteArray marker = QByteArray("\"") + kImageMarker + '"';
    QByteArray out;
    out.reserve(text.size() + qsizetype(turn.imageBytes / 3 * 4 + 64 * turn.images));
    qsizetype from = 0;
    for (const PromptTurn::Message& m : turn.messages) {
        for (const ImageRef& image : m.images) {
            const qsizetype at = text.indexOf(marker, from);
            if (at < 0)
                break;
            out.append(text.constData() + from, at - from + 1);
            out += image->dataUrl;
            out += '"';
            from = at + marker.size();
        }
    }
    out.append(text.constData() + from, text.size() - from);
    return out;
}
} // namespace

RequestFactory::RequestFactory(const LoadSpec& spec, QByteArray apiKey)
    : m_spec(spec)
    , m_apiKey(std::move(apiKey))
{
    QString path = m_spec.baseUrl.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (!path.endsWith(QLatin1String("/v1")))
        path += QStringLiteral("/v1");
    m_url = m_spec.baseUrl;
    m_modelsUrl = m_spec.baseUrl;
    m_modelsUrl.setPath(path + QStringLiteral("/models"));
    m_url.setPath(
        path + (m_spec.api == ApiKind::Chat ? QStringLiteral("/chat/completions") : QStringLiteral("/completions")));

    // The body is assembled around the prompt so building one is a few appends.
    nlohmann::json body = { { "model", m_spec.model.toStdString() }, { "max_tokens", m_spec.maxTokens },
        { "temperature", m_spec.temperature }, { "stream", true }, { "ignore_eos", m_spec.ignoreEos },
        { "stream_options", { { "include_usage", true } } } };
    const std::string marker = "@@knobscope-prompt@@"; // survives JSON escaping unchanged
    addTools(body);
    if (m_spec.api == ApiKind::Chat)
        body["messages"] = nlohmann::json::array({ { { "role", "user" }, { "content", marker } } });
    else
        body["prompt"] = marker;
    const QByteArray text = QByteArray::fromStdString(body.dump());
    const qsizetype at = text.indexOf(QByteArray::fromStdString(marker));
    m_bodyHead = text.left(at);
    m_bodyTail = text.mid(at + qsizetype(marker.size()));

    // Identity encoding: a compressed stream would arrive in bursts. HTTP/1.1
    // only: HTTP/2 would multiplex every stream onto one connection.
    m_headerLines = "Content-Type: application/json\r\nAccept: text/event-stream\r\nAccept-Encoding: identity\r\n"
                    "User-Agent: "
        + userAgent() + "\r\n";
    m_apiKey = m_apiKey.trimmed(); // a key read from a file often ends in a newline
    if (std::any_of(m_apiKey.begin(), m_apiKey.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        m_apiKey.clear(); // it would break the request's head; the server's 401 then says so
    if (!m_apiKey.isEmpty())
        m_headerLines += "Authorization: Bearer " + m_apiKey + "\r\n";

    if (!m_spec.probes && !m_spec.plainPrompts())
        m_workload = std::make_shared<const Workload>(m_spec);

    if (m_spec.probes) {
        // Quality probes: greedy, seeded, natural length (no ignore_eos).
        for (const Probe& probe : m_spec.probes->probes) {
            nlohmann::json b = { { "model", m_spec.model.toStdString() }, { "max_tokens", m_spec.maxTokens },
                { "temperature", 0 }, { "seed", m_spec.seed }, { "stream", true },
                { "stream_options", { { "include_usage", true } } } };
            if (m_spec.api == ApiKind::Chat)
                b["messages"] = probe.messages.is_array()
                    ? probe.messages
                    : nlohmann::json::array({ { { "role", "user" }, { "content", probe.prompt.toStdString() } } });
            else
                b["prompt"] = probe.prompt.toStdString();
            m_probeBodies.push_back(QByteArray::fromStdString(b.dump()));
        }
    }
}

const Probe* RequestFactory::probeOf(qint64 index) const
{
    if (!m_spec.probes || m_spec.probes->probes.empty())
        return nullptr;
    return &m_spec.probes->probes[std::size_t(index) % m_spec.probes->probes.size()];
}

int RequestFactory::probeRepeatOf(qint64 index) const
{
    return m_spec.probes && !m_spec.probes->probes.empty() ? int(index / qint64(m_spec.probes->probes.size())) : -1;
}

QByteArray RequestFactory::userAgent()
{
    return QByteArray("knobscope/") + KNOBSCOPE_VERSION;
}

QByteArray RequestFactory::body(qint64 index) const
{
    if (!m_probeBodies.empty())
        return m_probeBodies[std::size_t(index) % m_probeBodies.size()];
    return m_bodyHead + syntheticPrompt(m_spec.seed, index, m_spec.inputTokens) + m_bodyTail;
}

void RequestFactory::addTools(nlohmann::json& body) const
{
    if (m_spec.api != ApiKind::Chat)
        return;
    if (!m_spec.prompts.toolsJson.empty())
        body["tools"] = nlohmann::json::parse(m_spec.prompts.toolsJson);
    if (!m_spec.prompts.toolChoiceJson.empty())
        body["tool_choice"] = nlohmann::json::parse(m_spec.prompts.toolChoiceJson);
}

QByteArray RequestFactory::body(const PromptTurn& turn) const
{
    nlohmann::json b = { { "model", m_spec.model.toStdString() }, { "max_tokens", turn.maxTokens },
        { "temperature", m_spec.temperature }, { "stream", true }, { "ignore_eos", m_spec.ignoreEos },
        { "stream_options", { { "include_usage", true } } } };
    if (m_spec.api == ApiKind::Chat) {
        nlohmann::json messages = nlohmann::json::array();
        for (const PromptTurn::Message& m : turn.messages) {
            if (m.images.empty()) {
                messages.push_back({ { "role", m.role }, { "content", m.content.toStdString() } });
                continue;
            }
            // OpenAI's content parts: the text, then one image_url part per image,
            // whose URL is a marker replaced by the cached data URL below.
            nlohmann::json parts
                = nlohmann::json::array({ { { "type", "text" }, { "text", m.content.toStdString() } } });
            for (std::size_t i = 0; i < m.images.size(); ++i)
                parts.push_back({ { "type", "image_url" }, { "image_url", { { "url", kImageMarker } } } });
            messages.push_back({ { "role", m.role }, { "content", std::move(parts) } });
        }
        b["messages"] = std::move(messages);
        addTools(b);
        if (turn.images > 0)
            return spliceImages(
                QByteArray::fromStdString(b.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)), turn);
    } else {
        b["prompt"] = Workload::completionPrompt(turn).toStdString();
    }
    // Invalid UTF-8 in a prompt file's text is replaced, never a throw on the worker thread.
    return QByteArray::fromStdString(b.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QByteArray RequestFactory::httpRequest(qint64 index, const QByteArray& body) const
{
    QByteArray label = m_spec.runLabel.toUtf8();
    for (char& c : label)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '_'; // a control character would end the header line early
    QByteArray lines = m_headerLines;
    lines += "X-Request-Id: " + label + '/' + QByteArray::number(index) + "\r\n";
    return HttpConnection::requestHead("POST", m_url, lines, body.size()) + body;
}

qint64 RequestFactory::stallTimeoutUs() const
{
    // Saturated: a huge --stall-timeout means "never", not an overflow.
    constexpr double kLongestUs = 1e17;
    return qint64(std::clamp(m_spec.stallTimeoutS * 1e6, 1.0, kLongestUs));
}

QByteArray RequestFactory::modelsRequest() const
{
    QByteArray lines = "User-Agent: " + userAgent() + "\r\n";
    if (!m_apiKey.isEmpty())
        lines += "Authorization: Bearer " + m_apiKey + "\r\n";
    return HttpConnection::requestHead("GET", m_modelsUrl, lines, 0);
}

} // namespace ks
