#include "steerbox.h"

#include "load/loadrunner.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QPushButton>
#include <QShortcut>

#include <cmath>

namespace ks {

namespace {
// The Steer box's rate field: hundredths of a request per second up to what
// one client sends comfortably (past that, shard: docs/distributed.md).
constexpr double kMinRate = 0.01;
constexpr double kMaxRate = 100000;
} // namespace

SteerBox::SteerBox(QWidget* parent)
    : QWidget(parent)
    , m_field(new QDoubleSpinBox(this))
    , m_button(new QPushButton(tr("Steer"), this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_field);
    layout->addWidget(m_button);
    m_field->setObjectName(QStringLiteral("steerValue"));
    m_field->setAccelerated(true);
    m_field->setKeyboardTracking(false);
    m_button->setObjectName(QStringLiteral("steerButton"));
    connect(m_button, &QPushButton::clicked, this, &SteerBox::apply);
    // Alt+T goes to the number, where typing or the arrow keys set it and Enter
    // applies it (a mnemonic on the button would press it with the old value).
    auto* focus = new QShortcut(QKeySequence(tr("Alt+T")), this);
    connect(focus, &QShortcut::activated, this, [this] {
        if (!m_field->isEnabled())
            return;
        m_field->setFocus(Qt::ShortcutFocusReason);
        m_field->selectAll();
    });
    connect(m_field, &QDoubleSpinBox::editingFinished, this, [this] {
        if (m_field->hasFocus()) // Enter, not merely leaving the field
            apply();
    });
    setSteerable(false, Kind::Concurrency, 1, tr("No arm is running"));
}

QString SteerBox::help() const
{
    return m_kind == Kind::Rate
        ? tr("Steer the running rate arm (Alt+T): type requests per second, or step them with the arrow keys (Page "
             "Up/Down "
             "by 10); Enter or Steer applies it. Arrivals at the new rate start from that moment; each setting "
             "becomes a segment of the arm (ARM~rR) with its own summary, and the knee chart gains a point when "
             "the arm ends.")
        : tr(
            "Steer the running arm (Alt+T): arrow keys step the number of streams (Page Up/Down by 10); Enter or Steer "
            "applies it. Each setting becomes a segment of the arm (ARM~cN) with its own summary, and the knee "
            "chart gains a point when the arm ends.");
}

void SteerBox::setSteerable(bool steerable, Kind kind, double value, const QString& why)
{
    m_kind = kind;
    if (kind == Kind::Rate) {
        m_field->setDecimals(2);
        m_field->setRange(kMinRate, kMaxRate);
        m_field->setPrefix(tr("rate "));
        m_field->setSuffix(tr(" req/s"));
        m_field->setAccessibleName(tr("Rate to steer to, requests per second"));
    } else {
        m_field->setDecimals(0);
        m_field->setRange(1, kMaxSteeredConcurrency);
        m_field->setPrefix(tr("concurrency "));
        m_field->setSuffix(QString());
        m_field->setAccessibleName(tr("Concurrency to steer to"));
    }
    m_field->setSingleStep(1);
    m_field->setEnabled(steerable);
    m_button->setEnabled(steerable);
    if (steerable)
        m_field->setValue(value);
    const QString tip = steerable ? help() : help() + QLatin1Char('\n') + why;
    m_field->setToolTip(tip);
    m_button->setToolTip(tip);
}

void SteerBox::apply()
{
    if (!m_field->isEnabled())
        return;
    m_field->interpretText(); // a value typed and not yet committed
    if (m_kind == Kind::Rate)
        emit rateRequested(m_field->value());
    else
        emit concurrencyRequested(int(std::lround(m_field->value())));
}

} // namespace ks
