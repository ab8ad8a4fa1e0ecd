#include "server/serverversion.h"

#include "client/requestfactory.h"
#include "store/runfile.h"
#include "util/boundedjson.h"

#include <QHash>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QStringList>

namespace ks {

namespace {

using json = nlohmann::json;

constexpr int kMaxStringChars = 200;

std::string capped(const std::string& text)
{
    QString s = QString::fromStdString(text);
    if (s.size() <= kMaxStringChars)
        return text;
    s.truncate(kMaxStringChars);
    if (s.back().isHighSurrogate())
        s.chop(1); // never half a character
    return s.toStdString();
}

std::string stringField(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? capped(it->get<std::string>()) : std::string();
}

// Copies `key` into `details` when it is a string, number or boolean: never an
// object or array, which is where the large parts of these answers are.
void copySmall(const json& from, const char* key, json& details)
{
    const auto it = from.find(key);
    if (it == from.end())
        return;
    if (it->is_string())
        details[key] = capped(it->get<std::string>());
    else if (it->is_number() || it->is_boolean())
        details[key] = *it;
}

} // namespace

// The shapes, from each engine's documentation or server source:
// - llama.cpp, tools/server/README.md "GET /props": {"default_generation_settings":
//   {"n_ctx", "params", ...}, "total_slots", "model_path", "chat_template",
//   "modalities", "build_info": "b(build number)-(build commit hash)", ...};
//   model_alias in newer builds. No "version": build_info is the version.
// - SGLang, python/sglang/srt/entrypoints/http_server.py get_server_info():
//   every server argument (model_path, tp_size, ...), the scheduler's info
//   (max_total_num_tokens, ...), "internal_states" and "version".
// - Ollama, docs.ollama.com/api-reference/get-version: {"version": "0.12.6"}.
// - vLLM, vllm/entrypoints/openai/api_server.py show_version(): {"version": VLLM_VERSION}.
nlohmann::json serverVersionFromAnswer(const QString& path, const nlohmann::json& answer)
{
    if (!answer.is_object())
        return nullptr;
    std::string engine;
    std::string version;
    json details = json::object();
    if (path == QLatin1String("/props")) {
        engine = "llama.cpp";
        version = stringField(answer, "build_info");
        for (const char* key : { "model_path", "model_alias", "total_slots" })
            copySmall(answer, key, details);
        if (const auto settings = answer.find("default_generation_settings");
            settings != answer.end() && settings->is_object())
            copySmall(*settings, "n_ctx", details);
    } else if (path == QLatin1String("/get_server_info")) {
        engine = "sglang";
        version = stringField(answer, "version");
        for (const char* key :
            { "model_path", "tp_size", "dp_size", "context_length", "max_running_requests", "max_total_num_tokens" })
            copySmall(answer, key, details);
    } else if (path == QLatin1String("/api/version")) {
        engine = "ollama";
        version = stringField(answer, "version");
    } else if (path == QLatin1String("/version")) {
        engine = stringField(answer, "engine");
        if (engine.empty())
            engine = "vllm";
        version = stringField(answer, "version");
    }
    if (version.empty())
        return nullptr;
    return { { "engine", engine }, { "version", version }, { "endpoint", path.toStdString() },
        { "details", std::move(details) } };
}

QString serverVersionText(const nlohmann::json& info)
{
    if (!info.is_object())
        return {};
    if (const std::string error = stringField(info, "error"); !error.empty())
        return QStringLiteral("server version unknown: ") + QString::fromStdString(error);
    const std::string engine = stringField(info, "engine");
    const std::string version = stringField(info, "version");
    if (version.empty())
        return {};
    static const QHash<QString, QString> kNames { { QStringLiteral("vllm"), QStringLiteral("vLLM") },
        { QStringLiteral("sglang"), QStringLiteral("SGLang") },
        { QStringLiteral("ollama"), QStringLiteral("Ollama") } };
    const QString name = QString::fromStdString(engine);
    return QStringLiteral("%1 %2 (%3)")
        .arg(kNames.value(name, name), QString::fromStdString(version),
            QString::fromStdString(stringField(info, "endpoint")));
}

ServerVersionProbe::ServerVersionProbe(QObject* parent)
    : QObject(parent)
{
}

ServerVersionProbe::~ServerVersionProbe()
{
    abort();
}

QUrl ServerVersionProbe::serverRoot(const QUrl& baseUrl)
{
    QUrl url = baseUrl.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment);
    QString path = url.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (path.endsWith(QLatin1String("/v1")))
        path.chop(3);
    url.setPath(path);
    return url;
}

bool ServerVersionProbe::isRunning() const
{
    return m_running;
}

void ServerVersionProbe::probe(const QUrl& baseUrl)
{
    abort();
    if (!m_nam)
        m_nam = new QNetworkAccessManager(this);
    m_running = true;
    const QUrl root = serverRoot(baseUrl);
    for (std::size_t i = 0; i < kPaths.size(); ++i) {
        QUrl url = root;
        url.setPath(root.path() + QLatin1String(kPaths[i]));
        QNetworkRequest request(url);
        request.setRawHeader("User-Agent", RequestFactory::userAgent());
        if (!m_apiKey.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + m_apiKey);
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        request.setTransferTimeout(m_timeoutMs);
        QNetworkReply* reply = m_nam->get(request);
        m_pending[i] = Pending { reply, false, nullptr, {} };
        connect(reply, &QNetworkReply::finished, this, [this, i, reply] { onReply(i, reply); });
        connect(reply, &QNetworkReply::downloadProgress, this, [this, i, reply](qint64 received, qint64) {
            if (received <= kMaxAnswerBytes || m_pending[i].reply != reply)
                return;
            m_pending[i].problem = QStringLiteral("answer over %1 MiB").arg(kMaxAnswerBytes >> 20);
            reply->abort();
        });
    }
}

void ServerVersionProbe::abort()
{
    m_running = false;
    for (Pending& pending : m_pending) {
        if (QNetworkReply* reply = std::exchange(pending.reply, nullptr)) {
            disconnect(reply, nullptr, this, nullptr);
            // Left to end on its own, within the time limit: aborting a request
            // whose answer is already on its way from Qt's HTTP thread makes
            // Qt 6.4 warn of a second error.
            if (reply->isFinished())
                reply->deleteLater();
            else
                connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
        }
    }
}

void ServerVersionProbe::onReply(std::size_t index, QNetworkReply* reply)
{
    reply->deleteLater();
    Pending& pending = m_pending[index];
    if (pending.reply != reply)
        return; // from an abandoned probe
    pending.reply = nullptr;
    pending.done = true;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!pending.problem.isEmpty()) {
        // already known: cut off for its size
    } else if (status != 0 && status != 200) {
        pending.problem = QString::number(status);
    } else if (reply->error() != QNetworkReply::NoError) {
        switch (reply->error()) {
        case QNetworkReply::ConnectionRefusedError:
            pending.problem = QStringLiteral("connection refused");
            break;
        case QNetworkReply::OperationCanceledError: // what a transfer timeout reports
        case QNetworkReply::TimeoutError:
            pending.problem = QStringLiteral("no answer within %1 ms").arg(m_timeoutMs);
            break;
        default:
            pending.problem = reply->errorString().left(kMaxStringChars);
        }
    } else {
        const json answer = parseJsonGuarded(reply->readAll());
        if (answer.is_discarded())
            pending.problem = QStringLiteral("not JSON");
        else if (pending.info = serverVersionFromAnswer(QLatin1String(kPaths[index]), answer); pending.info.is_null())
            pending.problem = QStringLiteral("no version in the answer");
    }
    decide();
}

void ServerVersionProbe::decide()
{
    if (!m_running)
        return;
    json result;
    for (const Pending& pending : m_pending) {
        if (!pending.done)
            return; // an endpoint preferred to any that answered may still answer
        if (!pending.info.is_null()) {
            result = pending.info;
            break;
        }
    }
    if (result.is_null()) {
        QStringList problems;
        for (std::size_t i = 0; i < kPaths.size(); ++i)
            problems << QLatin1String(kPaths[i]) + QLatin1Char(' ') + m_pending[i].problem;
        result = { { "error",
            QStringLiteral("no version endpoint answered (%1)")
                .arg(problems.join(QStringLiteral(", ")))
                .toStdString() } };
    }
    abort(); // the endpoints less preferred than the one that answered are not needed
    emit finished(result);
}

QStringList serverVersionsOf(const RunFile& file)
{
    QStringList out;
    for (const RunData& run : file.runs) {
        const auto info = run.info.find("server_version");
        if (info == run.info.end() || !info->is_object())
            continue;
        if (const QString text = serverVersionText(*info); !text.isEmpty() && !out.contains(text))
            out << text;
    }
    return out;
}

} // namespace ks
