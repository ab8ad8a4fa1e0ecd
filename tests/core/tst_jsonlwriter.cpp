// The run-file writer: whole lines per flush, and every failure caught and named.
#include "store/jsonlwriter.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstring>
#include <memory>
#include <sys/resource.h>

using namespace ks;

namespace {

// One line of exactly `bytes` bytes including its newline: {"i":N,"pad":"xx…"}.
nlohmann::json lineOfSize(int index, std::size_t bytes)
{
    nlohmann::json j = { { "i", index }, { "pad", "" } };
    const std::size_t base = j.dump().size() + 1;
    j["pad"] = std::string(bytes - base, 'x');
    return j;
}

QList<QByteArray> linesOf(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = f.readAll().split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

} // namespace

class TestJsonlWriter : public QObject {
    Q_OBJECT
private slots:
    void linesReachTheFileOnFlushWhole()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(path, &error));
        QVERIFY(writer.write({ { "type", "experiment" }, { "schema", 1 } }));
        QVERIFY(writer.write({ { "text", "grüße \xF0\x9F\x98\x80" } }));
        QCOMPARE(QFileInfo(path).size(), 0); // queued, not yet written
        QVERIFY(writer.flush());
        QCOMPARE(linesOf(path),
            (QList<QByteArray> { R"({"schema":1,"type":"experiment"})", "{\"text\":\"grüße \xF0\x9F\x98\x80\"}" }));
        QVERIFY(writer.close());
        QVERIFY(writer.error().isEmpty());
    }

    void aFullDiskIsAnErrorNamingTheFile()
    {
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(QStringLiteral("/dev/full"), &error)); // every write: ENOSPC
        QVERIFY(writer.write({ { "type", "experiment" } })); // only queued
        QVERIFY(!writer.flush());
        QVERIFY(writer.failed());
        QVERIFY2(writer.error().contains(QStringLiteral("/dev/full")), qPrintable(writer.error()));
        QVERIFY2(writer.error().contains(QString::fromLocal8Bit(std::strerror(ENOSPC))), qPrintable(writer.error()));
        // The first error sticks: nothing later pretends to succeed.
        QVERIFY(!writer.write({ { "type", "run" } }));
        QVERIFY(!writer.flush());
        QVERIFY(!writer.close());
    }

    void aLargeBatchFailsAtWriteNotOnlyAtFlush()
    {
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(QStringLiteral("/dev/full"), &error));
        bool refused = false;
        for (int i = 0; i < 4096 && !refused; ++i) // 4096 × 1 KiB: past the 1 MiB early write
            refused = !writer.write(lineOfSize(i, 1024));
        QVERIFY(refused);
        QVERIFY(writer.failed());
    }

    void aDeletedFolderIsAnErrorNamingTheFile()
    {
        auto dir = std::make_unique<QTemporaryDir>();
        const QString path = dir->filePath(QStringLiteral("run.jsonl"));
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(path, &error));
        QVERIFY(writer.write({ { "type", "experiment" } }));
        QVERIFY(writer.flush());
        dir.reset(); // removes the folder with the file in it
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(writer.write({ { "type", "run" } }));
        QVERIFY(!writer.flush()); // the write itself succeeds into the unlinked file
        QVERIFY2(writer.error().contains(path), qPrintable(writer.error()));
        QVERIFY2(writer.error().contains(QStringLiteral("deleted")), qPrintable(writer.error()));
    }

    // A disk that fills in the middle of a batch (here: the file size limit,
    // RLIMIT_FSIZE): the part of the batch that got out is cut back, so the
    // file ends on the last whole line and every line in it parses.
    void aBatchCutShortLeavesOnlyWholeLines()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        constexpr std::size_t kLine = 100;
        constexpr int kPerBatch = 10;
        constexpr rlim_t kLimit = 4096; // 4 batches of 1000 bytes fit; the 5th gets 96 bytes out
        JsonlWriter writer;
        QString error;
        QVERIFY(writer.open(path, &error));

        rlimit saved {};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
        const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN); // else the process dies at the limit
        rlimit limited = saved;
        limited.rlim_cur = kLimit;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
        int batches = 0;
        bool ok = true;
        for (int b = 0; b < 10 && ok; ++b) {
            for (int i = 0; i < kPerBatch; ++i)
                writer.write(lineOfSize(b * kPerBatch + i, kLine));
            ok = writer.flush();
            batches += ok ? 1 : 0;
        }
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, oldHandler);

        QCOMPARE(batches, int(kLimit / (kLine * kPerBatch)));
        QVERIFY2(writer.error().contains(path), qPrintable(writer.error()));
        QVERIFY2(writer.error().contains(QString::fromLocal8Bit(std::strerror(EFBIG))), qPrintable(writer.error()));
        const QList<QByteArray> lines = linesOf(path);
        QCOMPARE(QFileInfo(path).size(), qint64(batches * kPerBatch * kLine));
        QCOMPARE(lines.size(), batches * kPerBatch);
        for (int i = 0; i < lines.size(); ++i) {
            const auto j = nlohmann::json::parse(lines[i].toStdString(), nullptr, false);
            QVERIFY(!j.is_discarded());
            QCOMPARE(j["i"].get<int>(), i);
        }
    }
};

QTEST_GUILESS_MAIN(TestJsonlWriter)
#include "tst_jsonlwriter.moc"
