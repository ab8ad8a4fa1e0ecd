#include "server/modelcatalog.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslConfiguration>

#include <nlohmann/json.hpp>

namespace ks {

QStringList parseModelList(const QByteArray& body, QString* error)
{
    const nlohmann::json doc = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
    const auto data = doc.is_object() ? doc.find("data") : doc.end();
    if (!doc.is_object() || data == doc.end() || !data->is_array()) {
        *error = QStringLiteral("the answer is not an OpenAI model list ({\"data\": [{\"id\": ...}]})");
        return {};
    }
    QStringList models;
    for (const nlohmann::json& m : *data) {
        if (m.is_object() && m.contains("id") && m["id"].is_string())
            models << QString::fromStdString(m["id"].get<std::string>());
    }
    return models;
}

ModelCatalog::ModelCatalog(QObject* parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
{
}

void ModelCatalog::fetch(const QUrl& baseUrl, const QString& apiKeyEnv, bool verifyTls)
{
    QUrl url = baseUrl;
    QString path = url.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (!path.endsWith(QLatin1String("/v1")))
        path += QStringLiteral("/v1");
    url.setPath(path + QStringLiteral("/models"));
    QNetworkRequest request(url);
    request.setTransferTimeout(5000);
    const QByteArray key = qgetenv(apiKeyEnv.toLocal8Bit().constData());
    if (!key.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + key);
    if (!verifyTls) {
        QSslConfiguration ssl = request.sslConfiguration();
        ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        request.setSslConfiguration(ssl);
    }
    QNetworkReply* reply = m_network->get(request);
    connect(reply, &QNetworkReply::finished, this, [this, reply, url] {
        reply->deleteLater();
        if (reply->error() != QNetworkReply::NoError) {
            emit fetchFailed(QStringLiteral("%1: %2").arg(url.toString(), reply->errorString()));
            return;
        }
        QString error;
        const QStringList models = parseModelList(reply->readAll(), &error);
        if (!error.isEmpty())
            emit fetchFailed(QStringLiteral("%1: %2").arg(url.toString(), error));
        else
            emit modelsFetched(models);
    });
}

} // namespace ks
