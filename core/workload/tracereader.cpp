#include "workload/tracereader.h"

#include <QDate>
#include <QFile>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ks {

namespace {
using json = nlohmann::json;

// Integer field of a JSON row, or nullopt when absent, not a whole number, or out of int range.
std::optional<qint64> wholeNumber(const json& row, const char* key)
{
    const auto it = row.find(key);
    if (it == row.end())
        return std::nullopt;
    if (it->is_number_integer())
        return it->get<qint64>();
    if (it->is_number_float()) {
        const double v = it->get<double>();
        if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9e15)
            return qint64(v);
    }
    return std::nullopt;
}

struct Reader {
    TraceIndex index;
    qint64 startUs = 0;
    qint64 endUs = std::numeric_limits<qint64>::max();
    qint64 lastOffsetUs = std::numeric_limits<qint64>::min();
    std::optional<qint64> originUs; ///< the first row's time (Mooncake, Azure)
    bool sorted = true; ///< rows must come in time order (a run file's need not)

    // Adds a row at absolute time `atUs`; false when the window has ended.
    bool add(qint64 atUs, int input, int output, const std::vector<quint64>& hashes)
    {
        if (!originUs)
            originUs = sorted ? atUs : 0;
        const qint64 offset = atUs - *originUs;
        if (offset >= endUs)
            return !sorted;
        if (offset < startUs)
            return true;
        TraceEntry e;
        e.offsetUs = offset - startUs;
        e.inputLen = input;
        e.outputLen = std::max(1, output);
        e.hashBegin = quint32(index.hashIds.size());
        e.hashCount = quint32(hashes.size());
        index.hashIds.insert(index.hashIds.end(), hashes.begin(), hashes.end());
        index.entries.push_back(e);
        return true;
    }
};

QString lineError(qint64 line, const QString& what)
{
    return QStringLiteral("line %1: %2").arg(line).arg(what);
}

// One Mooncake row: {"timestamp": ms, "input_length", "output_length", "hash_ids": [...]}.
QString readMooncakeRow(const QByteArray& text, qint64& atUs, int& input, int& output, std::vector<quint64>& hashes)
{
    const json row = json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    if (!row.is_object())
        return QStringLiteral("not a JSON object");
    const auto ts = row.find("timestamp");
    if (ts == row.end() || !ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0)
        return QStringLiteral("\"timestamp\" must be a number of milliseconds, at least 0");
    atUs = qint64(std::llround(ts->get<double>() * 1000.0));
    const auto in = wholeNumber(row, "input_length");
    const auto out = wholeNumber(row, "output_length");
    if (!in || *in < 1 || *in > std::numeric_limits<int>::max())
        return QStringLiteral("\"input_length\" must be a whole number of at least 1");
    if (!out || *out < 0 || *out > std::numeric_limits<int>::max())
        return QStringLiteral("\"output_length\" must be a whole number of at least 0");
    input = int(*in);
    output = int(*out);
    hashes.clear();
    if (const auto ids = row.find("hash_ids"); ids != row.end() && !ids->is_null()) {
        if (!ids->is_array())
            return QStringLiteral("\"hash_ids\" must be a list of whole numbers");
        for (const json& id : *ids) {
            if (!id.is_number_integer() || id.get<qint64>() < 0)
                return QStringLiteral("\"hash_ids\" must be a list of whole numbers, at least 0");
            hashes.push_back(id.get<quint64>());
        }
    }
    return {};
}

// One row of a knobscope run file; `keep` false for lines that are not a load request of `run`.
QString readRunRow(const QByteArray& text, QString& run, bool& keep, qint64& atUs, int& input, int& output)
{
    keep = false;
    const json row = json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
    if (!row.is_object())
        return QStringLiteral("not a JSON object");
    const auto type = row.find("type");
    if (type == row.end() || *type != "request")
        return {};
    if (const auto probe = row.find("probe"); probe != row.end() && !probe->is_null())
        return {};
    const auto label = row.find("run");
    if (label == row.end() || !label->is_string())
        return QStringLiteral("a request line without a \"run\" label");
    const QString thisRun = QString::fromStdString(label->get<std::string>());
    if (run.isEmpty())
        run = thisRun;
    if (thisRun != run)
        return {};
    const auto send = wholeNumber(row, "t_send_us");
    const auto in = wholeNumber(row, "in_tokens");
    const auto out = wholeNumber(row, "out_tokens");
    if (!send || *send < 0)
        return QStringLiteral("\"t_send_us\" must be a whole number of at least 0");
    if (!in || *in < 1 || *in > std::numeric_limits<int>::max())
        return QStringLiteral("\"in_tokens\" must be a whole number of at least 1");
    if (!out || *out < 0 || *out > std::numeric_limits<int>::max())
        return QStringLiteral("\"out_tokens\" must be a whole number of at least 0");
    keep = true;
    atUs = *send;
    input = int(*in);
    output = int(*out);
    return {};
}

struct AzureColumns {
    int timestamp = -1;
    int context = -1;
    int generated = -1;
};

QString readAzureRow(const QByteArray& text, const AzureColumns& cols, qint64& atUs, int& input, int& output)
{
    const QList<QByteArray> cells = text.trimmed().split(',');
    const int needed = std::max({ cols.timestamp, cols.context, cols.generated }) + 1;
    if (cells.size() < needed)
        return QStringLiteral("expected %1 comma-separated values, found %2").arg(needed).arg(cells.size());
    const auto at = parseAzureTimestamp(cells[cols.timestamp].trimmed());
    if (!at)
        return QStringLiteral("TIMESTAMP \"%1\" is not a date and time like 2023-11-16 18:15:46.6805900")
            .arg(QString::fromUtf8(cells[cols.timestamp].left(40)));
    bool okIn = false;
    bool okOut = false;
    const qlonglong in = cells[cols.context].trimmed().toLongLong(&okIn);
    const qlonglong out = cells[cols.generated].trimmed().toLongLong(&okOut);
    if (!okIn || in < 1 || in > std::numeric_limits<int>::max())
        return QStringLiteral("ContextTokens must be a whole number of at least 1");
    if (!okOut || out < 0 || out > std::numeric_limits<int>::max())
        return QStringLiteral("GeneratedTokens must be a whole number of at least 0");
    atUs = *at;
    input = int(in);
    output = int(out);
    return {};
}

QString readAzureHeader(const QByteArray& text, AzureColumns& cols)
{
    const QList<QByteArray> names = text.trimmed().split(',');
    for (int i = 0; i < names.size(); ++i) {
        const QByteArray name = names[i].trimmed();
        if (name == "TIMESTAMP")
            cols.timestamp = i;
        else if (name == "ContextTokens")
            cols.context = i;
        else if (name == "GeneratedTokens")
            cols.generated = i;
    }
    if (cols.timestamp < 0 || cols.context < 0 || cols.generated < 0)
        return QStringLiteral("expected a header naming TIMESTAMP, ContextTokens and GeneratedTokens");
    return {};
}

} // namespace

std::optional<TraceIndex::Format> traceFormatFromName(const QString& name)
{
    if (name == QLatin1String("mooncake"))
        return TraceIndex::Format::Mooncake;
    if (name == QLatin1String("azure"))
        return TraceIndex::Format::Azure;
    if (name == QLatin1String("knobscope"))
        return TraceIndex::Format::Knobscope;
    return std::nullopt;
}

QString traceFormatName(TraceIndex::Format format)
{
    switch (format) {
    case TraceIndex::Format::Mooncake:
        return QStringLiteral("mooncake");
    case TraceIndex::Format::Azure:
        return QStringLiteral("azure");
    case TraceIndex::Format::Knobscope:
        break;
    }
    return QStringLiteral("knobscope");
}

constexpr qint64 kUnixEpochJulianDay = 2440588; // 1970-01-01

std::optional<qint64> parseAzureTimestamp(const QByteArray& text)
{
    // YYYY-MM-DD HH:MM:SS[.fraction], fraction of up to 9 digits.
    if (text.size() < 19 || text[4] != '-' || text[7] != '-' || (text[10] != ' ' && text[10] != 'T') || text[13] != ':'
        || text[16] != ':')
        return std::nullopt;
    auto digits = [&](int from, int count) -> int {
        int v = 0;
        for (int i = from; i < from + count; ++i) {
            if (text[i] < '0' || text[i] > '9')
                return -1;
            v = v * 10 + (text[i] - '0');
        }
        return v;
    };
    const int year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
    const int hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
    const QDate date(year, month, day);
    if (!date.isValid() || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60)
        return std::nullopt;
    qint64 fractionUs = 0;
    if (text.size() > 19) {
        if (text[19] != '.' || text.size() == 20 || text.size() > 29)
            return std::nullopt;
        const int count = int(text.size()) - 20;
        const int fraction = digits(20, count);
        if (fraction < 0)
            return std::nullopt;
        double scale = 1e6;
        for (int i = 0; i < count; ++i)
            scale /= 10;
        fractionUs = qint64(double(fraction) * scale);
    }
    return ((date.toJulianDay() - kUnixEpochJulianDay) * 86400 + hour * 3600 + minute * 60 + second) * qint64(1000000)
        + fractionUs;
}

std::variant<TraceIndex, QString> readTrace(
    const QString& path, TraceIndex::Format format, double startS, double durationS)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read the trace %1: %2").arg(path, file.errorString());
    Reader reader;
    reader.startUs = qint64(std::max(0.0, startS) * 1e6);
    if (durationS > 0)
        reader.endUs = reader.startUs + qint64(durationS * 1e6);
    reader.sorted = format != TraceIndex::Format::Knobscope;
    AzureColumns columns;
    std::vector<quint64> hashes;
    qint64 line = 0;
    while (!file.atEnd()) {
        const QByteArray text = file.readLine();
        ++line;
        if (text.trimmed().isEmpty())
            continue;
        qint64 atUs = 0;
        int input = 0;
        int output = 0;
        bool keep = true;
        QString error;
        hashes.clear();
        if (format == TraceIndex::Format::Azure && columns.timestamp < 0)
            error = readAzureHeader(text, columns), keep = false;
        else if (format == TraceIndex::Format::Azure)
            error = readAzureRow(text, columns, atUs, input, output);
        else if (format == TraceIndex::Format::Mooncake)
            error = readMooncakeRow(text, atUs, input, output, hashes);
        else
            error = readRunRow(text, reader.index.runLabel, keep, atUs, input, output);
        if (!error.isEmpty())
            return lineError(line, error);
        if (!keep)
            continue;
        ++reader.index.rowsRead;
        if (reader.sorted && atUs < reader.lastOffsetUs)
            return lineError(line, QStringLiteral("earlier than the row before it (a trace must be in time order)"));
        reader.lastOffsetUs = atUs;
        if (!reader.add(atUs, input, output, hashes))
            break;
    }
    if (format == TraceIndex::Format::Azure && columns.timestamp < 0)
        return QStringLiteral("the trace %1 is empty (expected a CSV header)").arg(path);
    std::stable_sort(reader.index.entries.begin(), reader.index.entries.end(),
        [](const TraceEntry& a, const TraceEntry& b) { return a.offsetUs < b.offsetUs; });
    if (reader.index.entries.empty())
        return QStringLiteral("the trace %1 has no requests in the window").arg(path);
    return std::move(reader.index);
}

} // namespace ks
