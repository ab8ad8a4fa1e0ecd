#include "steeredrun.h"

#include "sim/simprocess.h"

#include <QFile>

#include <nlohmann/json.hpp>

#include <chrono>

namespace steered {

qint64 steadyNowUs()
{
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool startSim(SimProcess& sim, const QString& truthPath, QString* error)
{
    return sim.start({ QStringLiteral("--profile"), QStringLiteral("sim-1.8b"), QStringLiteral("--max-num-seqs"),
                         QStringLiteral("64"), QStringLiteral("--truth-log"), truthPath },
        error);
}

bool startClient(QProcess& client, quint16 port, const QStringList& load, const QString& out)
{
    client.setProgram(QStringLiteral(KNOBSCOPE_BIN));
    client.setArguments(
        QStringList { QStringLiteral("run"), QStringLiteral("--base-url"),
            QStringLiteral("http://127.0.0.1:%1").arg(port), QStringLiteral("--model"), QStringLiteral("sim-1.8b"),
            QStringLiteral("--max-tokens"), QStringLiteral("16"), QStringLiteral("--progress"), QStringLiteral("none"),
            QStringLiteral("--control"), QStringLiteral("stdin"), QStringLiteral("--out"), out }
        + load);
    client.start();
    return client.waitForStarted();
}

bool readUntil(QProcess& client, QByteArray& text, const QByteArray& what)
{
    text += client.readAllStandardError();
    return text.contains(what);
}

bool armStarted(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        const nlohmann::json j = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
        if (j.is_object() && j.value("type", std::string()) == "run")
            return true;
    }
    return false;
}

} // namespace steered
