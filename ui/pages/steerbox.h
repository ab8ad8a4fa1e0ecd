#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QPushButton;

namespace ks {

/// The Live page's steering control: a number box and a Steer button. It takes
/// a number of streams on a concurrency arm and requests per second on a rate
/// arm (docs/experiments.md, "Steering"); Enter or Steer applies it.
class SteerBox : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Concurrency, Rate };

    explicit SteerBox(QWidget* parent = nullptr);

    /// Enabled at `value` for a running arm steered by `kind`, else disabled saying why.
    void setSteerable(bool steerable, Kind kind, double value, const QString& why = {});
    Kind kind() const { return m_kind; }
    QDoubleSpinBox* field() const { return m_field; }
    QPushButton* button() const { return m_button; }

signals:
    /// The user asked the running arm to go on at `concurrency` streams.
    void concurrencyRequested(int concurrency);
    /// The user asked the running rate arm to go on at `rate` requests per second.
    void rateRequested(double rate);

private:
    void apply();
    QString help() const;

    QDoubleSpinBox* m_field;
    QPushButton* m_button;
    Kind m_kind = Kind::Concurrency;
};

} // namespace ks
