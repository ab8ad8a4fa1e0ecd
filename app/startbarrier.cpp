#include "startbarrier.h"

#include <QDateTime>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>
#include <unistd.h>

void waitForStart(qint64 startAtMs, const QString& who)
{
    const QString at = QDateTime::fromMSecsSinceEpoch(startAtMs).toUTC().toString(Qt::ISODateWithMs);
    const qint64 late = QDateTime::currentMSecsSinceEpoch() - startAtMs;
    if (late >= 0) {
        std::fprintf(stderr, "knobscope run: %s: the start time %s passed %lld ms ago; starting now\n", qPrintable(who),
            qPrintable(at), static_cast<long long>(late));
        return;
    }
    const bool terminal = isatty(STDERR_FILENO) != 0;
    QEventLoop loop;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setSingleShot(true);
    qint64 lastLine = -1;
    auto step = [&] {
        const qint64 left = startAtMs - QDateTime::currentMSecsSinceEpoch();
        if (left <= 0) {
            if (terminal)
                std::fputc('\n', stderr);
            loop.quit();
            return;
        }
        const qint64 seconds = (left + 999) / 1000;
        if (terminal) {
            std::fprintf(stderr, "\r%s: starting at %s in %lld s  ", qPrintable(who), qPrintable(at),
                static_cast<long long>(seconds));
        } else if (lastLine < 0 || lastLine - seconds >= 10) {
            std::fprintf(stderr, "%s: starting at %s in %lld s\n", qPrintable(who), qPrintable(at),
                static_cast<long long>(seconds));
            lastLine = seconds;
        }
        std::fflush(stderr);
        // Wake on each whole second before the start, and exactly at it.
        const qint64 toNextSecond = left % 1000 == 0 ? 1000 : left % 1000;
        tick.start(int(std::min(left, toNextSecond)));
    };
    QObject::connect(&tick, &QTimer::timeout, &loop, step);
    step();
    if (tick.isActive())
        loop.exec();
}
