#include "store/runid.h"

namespace ks {

RunId RunId::parse(const QString& name)
{
    RunId id;
    // The configuration first: a label may itself hold '~', '@' or '#'.
    const qsizetype slash = name.indexOf(QLatin1Char('/'));
    const QString rest = slash < 0 ? name : name.mid(slash + 1);
    if (slash >= 0)
        id.config = name.left(slash);
    const qsizetype tilde = rest.indexOf(QLatin1Char('~'));
    QString armPart = tilde < 0 ? rest : rest.left(tilde);
    if (tilde >= 0)
        id.segment = rest.mid(tilde + 1);
    // A repeat is '#' and a whole number at the end; any other '#' belongs to the name.
    const qsizetype hash = armPart.lastIndexOf(QLatin1Char('#'));
    if (hash >= 0) {
        bool ok = false;
        const int n = armPart.mid(hash + 1).toInt(&ok);
        if (ok && n > 1) {
            id.repeat = n;
            armPart.truncate(hash);
        }
    }
    const qsizetype at = armPart.indexOf(QLatin1Char('@'));
    if (at >= 0) {
        id.step = armPart.mid(at + 1);
        armPart.truncate(at);
    }
    id.arm = armPart;
    return id;
}

QString RunId::armRun() const
{
    QString out = arm;
    if (!step.isEmpty())
        out += QLatin1Char('@') + step;
    if (repeat > 1)
        out += QLatin1Char('#') + QString::number(repeat);
    return out;
}

QString RunId::unsegmented() const
{
    return hasConfig() ? config + QLatin1Char('/') + armRun() : armRun();
}

QString RunId::withoutConfig() const
{
    return segment.isEmpty() ? armRun() : armRun() + QLatin1Char('~') + segment;
}

QString RunId::toString() const
{
    return hasConfig() ? config + QLatin1Char('/') + withoutConfig() : withoutConfig();
}

QString RunId::configOrLabel() const
{
    return hasConfig() ? config : armRun();
}

QString RunId::setting() const
{
    const qsizetype hash = segment.indexOf(QLatin1Char('#'));
    return hash < 0 ? segment : segment.left(hash);
}

} // namespace ks
