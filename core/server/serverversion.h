#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <array>

class QNetworkAccessManager;
class QNetworkReply;

namespace ks {

struct RunFile;

/// What one engine-specific endpoint's JSON answer says of the server, as
/// ServerVersionProbe reports it: {"engine", "version", "endpoint", "details"}
/// with only small fields in details (strings capped at 200 characters), or
/// null when the answer names no version. `path` is the endpoint asked:
/// "/props" (llama.cpp: build_info), "/get_server_info" (SGLang),
/// "/api/version" (Ollama) or "/version" (vLLM, or whichever engine the answer
/// names in an "engine" field, as knobscope-sim does).
nlohmann::json serverVersionFromAnswer(const QString& path, const nlohmann::json& answer);

/// One line for people: "vLLM 0.6.3 (/version)", or the error.
QString serverVersionText(const nlohmann::json& info);

/// The distinct server versions a run file's run lines record (`server_version`),
/// as serverVersionText() writes them, in first-seen order.
QStringList serverVersionsOf(const RunFile& file);

/// Asks an inference server for its own version where each engine tells it,
/// for the experiment line's environment.server. GETs /props, /get_server_info,
/// /api/version and /version at the server root (a base URL ending in /v1 is
/// stripped) all at once, each with a time limit, and emits finished() once:
/// the info from the first of those endpoints, in that order (engine-specific
/// before generic), whose JSON answer names a version, or
/// {"error": "no version endpoint answered (/props 404, /version connection
/// refused, ...)"}. Lives in the thread that calls probe().
class ServerVersionProbe : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 2000;
    /// An answer longer than this is not a version (llama.cpp's /props with a
    /// long chat template is tens of KiB).
    static constexpr qint64 kMaxAnswerBytes = 2 << 20;
    /// The endpoints, in the order their answers are preferred.
    static constexpr std::array<const char*, 4> kPaths { "/props", "/get_server_info", "/api/version", "/version" };

    explicit ServerVersionProbe(QObject* parent = nullptr);
    ~ServerVersionProbe() override;

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    /// Sent as "Authorization: Bearer <key>": a server started with an API key
    /// may guard these endpoints too.
    void setApiKey(const QByteArray& key) { m_apiKey = key; }
    /// Starts a probe; one still running is abandoned without a finished().
    void probe(const QUrl& baseUrl);
    /// Abandons a running probe without a finished().
    void abort();
    bool isRunning() const;
    /// The server root of a base URL: the path with a trailing "/v1" removed.
    static QUrl serverRoot(const QUrl& baseUrl);

signals:
    void finished(const nlohmann::json& info);

private:
    struct Pending {
        QNetworkReply* reply = nullptr;
        bool done = false;
        nlohmann::json info; ///< null unless the answer named a version
        QString problem; ///< "404", "connection refused", ...
    };

    void onReply(std::size_t index, QNetworkReply* reply);
    void decide();

    QNetworkAccessManager* m_nam = nullptr;
    std::array<Pending, kPaths.size()> m_pending {};
    bool m_running = false;
    int m_timeoutMs = kDefaultTimeoutMs;
    QByteArray m_apiKey;
};

} // namespace ks
