#pragma once

#include <QTcpServer>

/// A TCP port on 127.0.0.1 that was free a moment ago, for a simulator under test.
inline quint16 freePort()
{
    QTcpServer server;
    server.listen(QHostAddress::LocalHost, 0);
    return server.serverPort();
}
