#pragma once

#include "metrics/liveexposition.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>

#include <memory>

class QHttpServer;
namespace ks {
class ExperimentRunner;
}

/// `knobscope run --metrics-port P`: GET /metrics serves the running
/// experiment's client-side view (ks::LiveExposition) in Prometheus text.
/// Qt HTTP Server 6.4 serves this well: one small response per request, no
/// streaming (the part of its API that changed in 6.5 and 6.8).
class MetricsEndpoint : public QObject {
public:
    MetricsEndpoint();
    ~MetricsEndpoint() override;
    /// Listens on `address` only (--metrics-host: loopback by default, 0.0.0.0
    /// in a pod for the cluster's Prometheus); returns the port (0: failed, `error` set).
    quint16 listen(const QHostAddress& address, quint16 port, QString* error);
    /// `http://ADDRESS:PORT/metrics`, an IPv6 address in brackets.
    static QString url(const QHostAddress& address, quint16 port);
    /// Follows the runner's records (as they reach the file), progress and summaries.
    void follow(ks::ExperimentRunner& runner);
    ks::LiveExposition& exposition() { return m_exposition; }

private:
    QByteArray scrape();

    std::unique_ptr<QHttpServer> m_server;
    ks::LiveExposition m_exposition;
    QString m_run;
    QElapsedTimer m_sinceScrape;
    double m_cpuAtScrape = -1;
};
