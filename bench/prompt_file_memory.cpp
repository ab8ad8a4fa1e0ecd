// Reads one prompt file the way an experiment does (loadPromptDataset) and
// prints its size, the time, the speed, what was kept and the process's peak
// resident memory (VmHWM), for docs/PERFORMANCE.md "Prompt files: ShareGPT
// JSON array". Usage: prompt_file_memory FILE [sharegpt|openai] [--whole]
// --whole reads the file into memory first and parses the bytes, as
// loadPromptDataset did before it read in pieces.
#include "workload/promptdataset.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <ctime>

namespace {

// Kibibytes of a /proc/self/status field ("VmHWM", "VmRSS").
long statusKiB(const char* field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').value(0).toLong();
    return -1;
}

double cpuSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [sharegpt|openai] [--whole]\n", argv[0]);
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    const bool openai = argc > 2 && QByteArray(argv[2]) == "openai";
    const bool whole = argc > 3 && QByteArray(argv[3]) == "--whole";
    const auto format = openai ? ks::PromptDataset::Format::OpenAi : ks::PromptDataset::Format::ShareGpt;
    const long hwmBefore = statusKiB("VmHWM");
    const double cpu0 = cpuSeconds();
    QElapsedTimer wall;
    wall.start();
    const auto loaded = whole ? [&] {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? ks::parsePromptDataset(file.readAll(), format, path)
                                              : std::variant<ks::PromptDataset, QString>(file.errorString());
    }()
                              : ks::loadPromptDataset(path, format);
    const double seconds = double(wall.nsecsElapsed()) / 1e9;
    const double cpu = cpuSeconds() - cpu0;
    const long hwm = statusKiB("VmHWM");
    const long rss = statusKiB("VmRSS");
    if (const auto* error = std::get_if<QString>(&loaded)) {
        std::fprintf(stderr, "%s\n", qPrintable(*error));
        return 1;
    }
    const ks::PromptDataset& d = std::get<ks::PromptDataset>(loaded);
    qint64 turns = 0;
    for (std::size_t i = 0; i < d.conversationCount(); ++i)
        turns += d.userTurnCount(i);
    const qint64 system = d.textCount() - turns;
    const qint64 keptBytes = d.textBytes();
    const double bytes = double(QFileInfo(path).size());
    std::printf("file %s (%s%s)\n", qPrintable(path), qPrintable(ks::formatName(format)),
        whole ? ", read whole first" : ", read in pieces");
    std::printf("bytes %.0f (%.1f MiB)\n", bytes, bytes / (1 << 20));
    std::printf("conversations %zu, user turns %lld, system messages %lld, kept text %.1f MiB\n", d.conversationCount(),
        static_cast<long long>(turns), static_cast<long long>(system), double(keptBytes) / (1 << 20));
    std::printf("wall %.2f s, cpu %.2f s, %.0f MB/s by wall, %.0f MB/s by cpu\n", seconds, cpu, bytes / 1e6 / seconds,
        bytes / 1e6 / cpu);
    std::printf("peak RSS (VmHWM) %.1f MiB (%.1f MiB before loading), RSS after %.1f MiB\n", hwm / 1024.0,
        hwmBefore / 1024.0, rss / 1024.0);
    std::printf("sha256 %s\n", qPrintable(d.sha256));
    return 0;
}
