#pragma once

#include <QObject>
#include <QStringList>
#include <QUrl>

class QNetworkAccessManager;

namespace ks {

/// Asks a server which models it serves (GET /v1/models, OpenAI format), for
/// the dashboard's model list. The answer arrives by signal; a server that is
/// not running or has no such endpoint is a failure with a readable reason.
class ModelCatalog : public QObject {
    Q_OBJECT
public:
    explicit ModelCatalog(QObject* parent = nullptr);

    void fetch(const QUrl& baseUrl, const QString& apiKeyEnv, bool verifyTls = true);

signals:
    void modelsFetched(const QStringList& models);
    void fetchFailed(const QString& reason);

private:
    QNetworkAccessManager* m_network;
};

/// The model ids of a /v1/models body, or an empty list when it has none.
QStringList parseModelList(const QByteArray& body, QString* error);

} // namespace ks
