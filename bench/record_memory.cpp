// Resident memory per stored RequestRecord with a 256-entry ITL array (the
// stress arm's shape), measured as the RSS growth over 200,000 records.
#include "store/requestrecord.h"

#include <QFile>

#include <cstdio>
#include <unistd.h>
#include <vector>

namespace {
long residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.value(1).toLong() * sysconf(_SC_PAGESIZE);
}
} // namespace

int main()
{
    constexpr int kRecords = 200000;
    const QString run = QStringLiteral("mns32/stress");
    std::vector<ks::RequestRecord> records;
    records.reserve(kRecords);
    const long before = residentBytes();
    for (int i = 0; i < kRecords; ++i) {
        ks::RequestRecord r;
        r.run = run; // implicitly shared, as in a live run
        r.id = i;
        r.tSendUs = i;
        r.ttftUs = 1000;
        r.e2eUs = 9000;
        r.itlUs.assign(255, 25000); // 256 tokens: 255 gaps
        r.outTokens = 256;
        r.ok = true;
        r.outputSha256 = QByteArray(32, '\xaa') + QByteArray::number(i % 10); // a distinct buffer per record
        r.outputSha256.chop(1);
        records.push_back(std::move(r));
    }
    const long after = residentBytes();
    std::printf("records: %d, sizeof(RequestRecord) %zu B, RSS growth %.1f MiB, %.0f B per record\n", kRecords,
        sizeof(ks::RequestRecord), double(after - before) / (1 << 20), double(after - before) / kRecords);
    return records.size() == kRecords ? 0 : 1;
}
