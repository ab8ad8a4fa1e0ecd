#pragma once

#include <QNetworkRequest>
#include <QtGlobal>

#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
#include <QHttp1Configuration>
#endif

namespace ks {

#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
/// With QHttp1Configuration one QNAM can hold many connections to one host.
inline constexpr int kStreamsPerManager = 64;
#else
/// Qt 6.4 opens at most 6 HTTP/1.1 connections per host and QNAM and cannot be
/// told otherwise: more streams on one QNAM would silently queue (DESIGN.md section 10).
inline constexpr int kStreamsPerManager = 6;
#endif

/// Sets the per-host connection count the pool relies on (Qt >= 6.5; a no-op on
/// 6.4). Must be on the first request to a host, so pre-connect requests carry it too.
inline void applyConnectionLimit(QNetworkRequest& request)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    QHttp1Configuration http1;
    http1.setNumberOfConnectionsPerHost(kStreamsPerManager);
    request.setHttp1Configuration(http1);
#else
    Q_UNUSED(request);
#endif
}

} // namespace ks
