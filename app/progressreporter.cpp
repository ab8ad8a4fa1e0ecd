#include "progressreporter.h"

#include <cstdio>
#include <unistd.h>

namespace {
constexpr qint64 kPlainIntervalMs = 5000;
constexpr qint64 kBarIntervalMs = 100;
constexpr int kBarWidth = 30;

QString clock(double seconds)
{
    const int s = int(seconds);
    return QStringLiteral("%1:%2").arg(s / 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}
} // namespace

bool ProgressReporter::parseMode(const QString& text, Mode* mode)
{
    if (text == QLatin1String("auto"))
        *mode = Mode::Auto;
    else if (text == QLatin1String("bar"))
        *mode = Mode::Bar;
    else if (text == QLatin1String("none"))
        *mode = Mode::None;
    else
        return false;
    return true;
}

ProgressReporter::ProgressReporter(Mode mode)
    : m_bar(mode == Mode::Bar || (mode == Mode::Auto && isatty(STDERR_FILENO)))
    , m_enabled(mode != Mode::None)
{
    m_sincePrint.start();
}

void ProgressReporter::update(const ks::LoadProgress& p)
{
    if (!m_enabled || (m_printed && m_sincePrint.elapsed() < (m_bar ? kBarIntervalMs : kPlainIntervalMs)))
        return;
    m_sincePrint.restart();
    m_printed = true;
    const double rate = p.elapsedS > 0 ? p.done / p.elapsedS : 0;
    double fraction = 0;
    if (p.expected > 0)
        fraction = double(p.done) / p.expected;
    else if (p.durationS > 0)
        fraction = p.elapsedS / p.durationS;
    fraction = std::clamp(fraction, 0.0, 1.0);
    const double eta = fraction > 0 ? p.elapsedS * (1 - fraction) / fraction : 0;
    const QString total = p.expected > 0 ? QString::number(p.expected) : QStringLiteral("?");
    const QString stats = QStringLiteral("%1/%2 requests  %3 req/s  %4 errors  elapsed %5  ETA %6")
                              .arg(p.done)
                              .arg(total)
                              .arg(rate, 0, 'f', 1)
                              .arg(p.errors)
                              .arg(clock(p.elapsedS), clock(eta));
    if (m_bar) {
        const int filled = int(fraction * kBarWidth);
        const QString bar = QString(filled, QLatin1Char('#')) + QString(kBarWidth - filled, QLatin1Char('.'));
        std::fprintf(stderr, "\r[%s] %s\x1b[K", qPrintable(bar), qPrintable(stats));
    } else {
        std::fprintf(stderr, "progress: %s\n", qPrintable(stats));
    }
    std::fflush(stderr);
}

void ProgressReporter::finish()
{
    if (m_enabled && m_bar && m_printed)
        std::fputc('\n', stderr);
}
