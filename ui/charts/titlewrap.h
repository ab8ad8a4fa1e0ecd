#pragma once

#include <QStringList>

class QFontMetrics;

namespace ks {

/// Lays a chart title such as "one-knob · stress · TTFT (ms) · mns32 vs mns128"
/// out in lines no wider than `width`, breaking only after a " · " or " vs "
/// separator, so the configurations being compared stay readable on screen
/// instead of vanishing behind an ellipsis. A single piece wider than `width`
/// is elided in the middle; the caller shows the full title as a tooltip.
QStringList wrapTitle(const QString& title, const QFontMetrics& metrics, int width);

} // namespace ks
