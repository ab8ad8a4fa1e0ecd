#include "rawhttpclient.h"

#include <QSignalSpy>

QByteArray RawResponse::header(const QByteArray& lowerName) const
{
    for (const auto& [name, value] : headers) {
        if (name == lowerName)
            return value;
    }
    return {};
}

QList<RawResponse> parseResponses(const QByteArray& bytes)
{
    QList<RawResponse> out;
    qsizetype pos = 0;
    while (pos < bytes.size()) {
        const qsizetype headEnd = bytes.indexOf("\r\n\r\n", pos);
        if (headEnd < 0)
            break;
        RawResponse r;
        const QList<QByteArray> lines = bytes.mid(pos, headEnd - pos).split('\n');
        r.status = lines.first().split(' ').value(1).toInt();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines[i].trimmed();
            const qsizetype colon = line.indexOf(':');
            r.headers.append({ line.left(colon).toLower(), line.mid(colon + 1).trimmed() });
        }
        pos = headEnd + 4;
        if (r.header("transfer-encoding") == "chunked") {
            while (true) {
                const qsizetype sizeEnd = bytes.indexOf("\r\n", pos);
                if (sizeEnd < 0)
                    break;
                bool ok = false;
                const qsizetype size = bytes.mid(pos, sizeEnd - pos).toLongLong(&ok, 16);
                if (!ok || sizeEnd + 2 + size + 2 > bytes.size())
                    break;
                pos = sizeEnd + 2 + size + 2;
                if (size == 0) {
                    r.complete = true;
                    break;
                }
                const QByteArray payload = bytes.mid(sizeEnd + 2, size);
                r.chunks.append(payload);
                r.body += payload;
            }
        } else {
            const qsizetype length = r.header("content-length").toLongLong();
            r.body = bytes.mid(pos, length);
            r.complete = r.body.size() == length;
            pos += r.body.size();
        }
        out.append(r);
        if (!r.complete)
            break;
    }
    return out;
}

SseStream splitSse(const QByteArray& body)
{
    SseStream s;
    s.crlf = body.contains("\r\n");
    QByteArray text = body;
    text.replace("\r\n", "\n");
    qsizetype pos = 0;
    while (true) {
        const qsizetype end = text.indexOf("\n\n", pos);
        if (end < 0)
            break;
        const QByteArray event = text.mid(pos, end - pos);
        pos = end + 2;
        for (const QByteArray& line : event.split('\n')) {
            if (line.startsWith(':'))
                ++s.comments;
            else if (line.startsWith("data: "))
                s.data.append(line.mid(6));
        }
    }
    s.trailing = text.mid(pos);
    return s;
}

QByteArray postRequest(const QByteArray& path, const QByteArray& json, bool keepAlive, const QByteArray& extraHeaders)
{
    return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
        + QByteArray::number(json.size()) + "\r\n" + extraHeaders
        + (keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n") + json;
}

QByteArray getRequest(const QByteArray& path, bool keepAlive)
{
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + (keepAlive ? QByteArray("\r\n") : QByteArray("Connection: close\r\n\r\n"));
}

void RawHttpClient::start(quint16 port, const QByteArray& request)
{
    m_request = request;
    connect(&m_socket, &QTcpSocket::connected, this, [this] { m_socket.write(m_request); });
    connect(&m_socket, &QTcpSocket::readyRead, this, [this] { m_received += m_socket.readAll(); });
    auto finish = [this] {
        if (m_done)
            return;
        m_received += m_socket.readAll();
        m_done = true;
        emit done();
    };
    connect(&m_socket, &QTcpSocket::disconnected, this, finish);
    connect(&m_socket, &QTcpSocket::errorOccurred, this, finish);
    m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
}

QList<RawResponse> exchange(quint16 port, const QByteArray& request, int timeoutMs)
{
    RawHttpClient client;
    QSignalSpy spy(&client, &RawHttpClient::done);
    client.start(port, request);
    if (!client.isDone())
        spy.wait(timeoutMs);
    return client.responses();
}
