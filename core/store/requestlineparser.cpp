#include "store/requestlineparser.h"

#include "store/requestlinefields.h"
#include "store/requesttable.h"

#include <cmath>
#include <string_view>

namespace ks {

namespace {

using json = nlohmann::json;

/// Fills a RequestRecord as the parser walks one request object, dropping what
/// does not fit and noting why.
class RequestSax : public nlohmann::json_sax<json> {
public:
    RequestSax(RequestRecord& record, const QString* sameRun)
        : m_record(record)
        , m_sameRun(sameRun)
    {
    }

    std::vector<QString> problems; ///< "field: what; consequence", for a request line only
    bool isRequest = false;
    bool topIsObject = false;
    bool skip = false;
    bool hasRun = false, hasId = false, hasSend = false, hasSched = false, hasOk = false, hasRepeat = false;

    bool null() override
    {
        return scalar(
            "null", [] { return true; }, true);
    }
    bool boolean(bool v) override
    {
        return scalar("a boolean", [&] {
            if (m_field == RequestField::Ok) {
                m_record.ok = v;
                hasOk = true;
                return true;
            }
            if (m_field == RequestField::Warmup) {
                m_record.warmup = v;
                return true;
            }
            return false;
        });
    }
    bool number_integer(number_integer_t v) override
    {
        if (inServer())
            return serverNumber(double(v), true);
        return integer(qint64(v), true, "an integer");
    }
    bool number_unsigned(number_unsigned_t v) override
    {
        if (inServer())
            return serverNumber(double(v), true);
        const bool fits = v <= number_unsigned_t(std::numeric_limits<qint64>::max());
        return integer(fits ? qint64(v) : 0, fits, "an integer");
    }
    bool number_float(number_float_t v, const string_t&) override
    {
        if (inServer())
            return serverNumber(v, false);
        // An integral float (12.0, 1e3) is accepted where an integer is expected.
        const bool integral = std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.2e18;
        return integer(integral ? qint64(v) : 0, integral, integral ? "a number" : "a number with a fraction");
    }
    bool string(string_t& v) override
    {
        return scalar("a string", [&] { return text(v); });
    }
    bool binary(binary_t&) override
    {
        return scalar("binary data", [] { return false; });
    }

    bool start_object(std::size_t) override { return container("an object", true); }
    bool start_array(std::size_t) override { return container("an array", false); }
    bool end_object() override { return endContainer(); }
    bool end_array() override { return endContainer(); }
    bool key(string_t& k) override
    {
        if (m_skipDepth == 0 && m_inServer && m_depth == 2) {
            m_serverKey = serverTimingKeyOf(k);
            m_key = k;
            return true;
        }
        if (m_skipDepth == 0 && m_depth == 1) {
            const auto it = requestLineFields().find(k);
            m_known = it != requestLineFields().end();
            if (m_known)
                m_field = it->second;
            m_key = k;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override
    {
        errorAt = qint64(position);
        return false;
    }
    qint64 errorAt = -1;

private:
    QString name() const { return QStringLiteral("request.") + QString::fromStdString(m_key); }

    bool required() const
    {
        return m_field == RequestField::Run || m_field == RequestField::Id || m_field == RequestField::TSend
            || m_field == RequestField::Ok;
    }

    void wrong(const QString& what)
    {
        problems.push_back(name() + QStringLiteral(": ") + what
            + (required() ? QStringLiteral("; line skipped") : QStringLiteral("; left empty")));
        if (required())
            skip = true;
    }

    static QString expected(RequestField f)
    {
        switch (f) {
        case RequestField::Warmup:
        case RequestField::Ok:
            return QStringLiteral("a boolean");
        case RequestField::Type:
        case RequestField::Run:
        case RequestField::Probe:
        case RequestField::OutTokensSource:
        case RequestField::ReasoningTokensSource:
        case RequestField::Error:
        case RequestField::ErrorDetail:
        case RequestField::OutputSha:
        case RequestField::ReasoningSha:
        case RequestField::OutputText:
        case RequestField::ReasoningText:
            return QStringLiteral("a string");
        case RequestField::Itl:
            return QStringLiteral("an array of integers");
        case RequestField::Server:
            return QStringLiteral("an object");
        default:
            return QStringLiteral("an integer");
        }
    }

    // A scalar at the top level of the object: `apply` stores it and says
    // whether the field takes this type.
    template <typename Apply> bool scalar(const char* got, Apply apply, bool isNull = false)
    {
        if (m_skipDepth > 0)
            return true;
        if (m_depth == 0)
            return false; // not an object at all
        if (m_inItl)
            return itlElement(got);
        if (m_inServer) {
            if (m_depth == 2 && !isNull && m_serverKey != ServerTimingKey::Other
                && m_serverKey != ServerTimingKey::Source)
                serverWrong(
                    QStringLiteral("expected %1, got %2").arg(serverTimingExpected(m_serverKey), QLatin1String(got)));
            else if (m_depth == 2 && !isNull && m_serverKey == ServerTimingKey::Source
                && std::string_view(got) != "a string")
                serverWrong(QStringLiteral("expected a string, got %1").arg(QLatin1String(got)));
            return true;
        }
        if (m_depth != 1 || !m_known)
            return true;
        if (isNull) {
            // null means "absent" for optional fields (the writer's own convention)
            if (required() || m_field == RequestField::Type)
                wrong(QStringLiteral("expected %1, got null").arg(expected(m_field)));
            return true;
        }
        if (!apply())
            wrong(QStringLiteral("expected %1, got %2").arg(expected(m_field), QLatin1String(got)));
        return true;
    }

    bool text(const std::string& v)
    {
        const auto qtext = [&] {
            const qsizetype limit = m_field == RequestField::Error || m_field == RequestField::ErrorDetail
                ? kMaxDetailChars
                : kMaxLabelChars;
            QString t = QString::fromUtf8(v.data(), qsizetype(std::min<std::size_t>(v.size(), std::size_t(limit) * 4)));
            if (t.size() > limit) {
                t.truncate(limit);
                problems.push_back(QStringLiteral("%1: longer than %2 characters; cut").arg(name()).arg(limit));
            }
            return t;
        };
        switch (m_field) {
        case RequestField::Type:
            isRequest = v == "request";
            return true;
        case RequestField::Run:
            if (v.empty()) {
                wrong(QStringLiteral("empty run label"));
                return true;
            }
            if (m_sameRun && v.size() < std::size_t(kMaxLabelChars)
                && QAnyStringView::compare(*m_sameRun, QUtf8StringView(v.data(), qsizetype(v.size()))) == 0)
                m_record.run = *m_sameRun;
            else
                m_record.run = qtext();
            hasRun = true;
            return true;
        case RequestField::Probe:
            m_record.probe = qtext();
            return true;
        case RequestField::Error:
            m_record.error = qtext();
            return true;
        case RequestField::ErrorDetail:
            m_record.errorDetail = qtext();
            return true;
        case RequestField::OutTokensSource:
            m_record.outTokensFromUsage = v == "usage";
            return true;
        case RequestField::ReasoningTokensSource:
            m_record.reasoningTokensFromUsage = v == "usage";
            return true;
        case RequestField::OutputSha:
        case RequestField::ReasoningSha:
            if (!isHex64(v)) {
                wrong(QStringLiteral("expected 64 hex digits (a SHA-256)"));
                return true;
            }
            (m_field == RequestField::OutputSha ? m_record.outputSha256 : m_record.reasoningSha256)
                = shaFromHex(QByteArrayView(v.data(), qsizetype(v.size())));
            return true;
        case RequestField::OutputText:
            m_record.outputText = QByteArray(v.data(), qsizetype(v.size()));
            return true;
        case RequestField::ReasoningText:
            m_record.reasoningText = QByteArray(v.data(), qsizetype(v.size()));
            return true;
        default:
            return false;
        }
    }

    bool integer(qint64 v, bool representable, const char* got)
    {
        if (m_skipDepth > 0)
            return true;
        if (m_depth == 0)
            return false;
        if (m_inItl) {
            if (!representable || v < 0 || v > INT32_MAX)
                return itlElement(representable ? "an integer out of range" : got);
            m_record.itlUs.push_back(std::int32_t(v));
            ++m_itlIndex;
            return true;
        }
        if (m_depth != 1 || !m_known)
            return true;
        qint64* target = nullptr;
        int* small = nullptr;
        switch (m_field) {
        case RequestField::Id:
            target = &m_record.id;
            break;
        case RequestField::TSend:
            target = &m_record.tSendUs;
            break;
        case RequestField::TSched:
            target = &m_record.tSchedUs;
            break;
        case RequestField::TWire:
            target = &m_record.tWireUs;
            break;
        case RequestField::THeaders:
            target = &m_record.tHeadersUs;
            break;
        case RequestField::Ttft:
            target = &m_record.ttftUs;
            break;
        case RequestField::Ttfc:
            target = &m_record.ttfcUs;
            break;
        case RequestField::E2e:
            target = &m_record.e2eUs;
            break;
        case RequestField::InTokens:
            small = &m_record.inTokens;
            break;
        case RequestField::OutTokens:
            small = &m_record.outTokens;
            break;
        case RequestField::Status:
            small = &m_record.status;
            break;
        case RequestField::ProbeRepeat:
            small = &m_record.probeRepeat;
            break;
        case RequestField::Session:
            target = &m_record.session;
            break;
        case RequestField::Turn:
            small = &m_record.turn;
            break;
        case RequestField::Prefix:
            small = &m_record.prefix;
            break;
        case RequestField::ReasoningTokens:
            small = &m_record.reasoningTokens;
            break;
        case RequestField::AnswerTokens:
            small = &m_record.answerTokens;
            break;
        case RequestField::ToolCallEvents:
            small = &m_record.toolCallEvents;
            break;
        case RequestField::ToolCalls:
            small = &m_record.toolCalls;
            break;
        case RequestField::Images:
            small = &m_record.images;
            break;
        case RequestField::ImageBytes:
            target = &m_record.imageBytes;
            break;
        default:
            wrong(QStringLiteral("expected %1, got %2").arg(expected(m_field), QLatin1String(got)));
            return true;
        }
        const auto [low, high] = rangeOf(m_field);
        if (!representable || v < low || v > high) {
            wrong(representable ? QStringLiteral("%1 is out of range (%2 to %3)").arg(v).arg(low).arg(high)
                                : QStringLiteral("expected an integer, got %1").arg(QLatin1String(got)));
            return true;
        }
        if (target)
            *target = v;
        else
            *small = int(v);
        hasId = hasId || m_field == RequestField::Id;
        hasSend = hasSend || m_field == RequestField::TSend;
        hasSched = hasSched || m_field == RequestField::TSched;
        hasRepeat = hasRepeat || m_field == RequestField::ProbeRepeat;
        return true;
    }

    bool itlElement(const char* got)
    {
        if (!m_itlBad)
            problems.push_back(QStringLiteral("request.itl_us[%1]: expected an integer from 0 to %2, got %3; "
                                              "itl_us left empty")
                                   .arg(m_itlIndex)
                                   .arg(INT32_MAX)
                                   .arg(QLatin1String(got)));
        m_itlBad = true;
        m_record.itlUs.clear();
        return true;
    }

    bool container(const char* got, bool object)
    {
        if (m_skipDepth > 0) {
            ++m_skipDepth;
            return true;
        }
        if (m_depth == 0) {
            if (!object)
                return false; // a top-level array: not a record
            topIsObject = true;
            m_depth = 1;
            return true;
        }
        if (m_inItl) {
            itlElement(got);
            m_skipDepth = 1;
            return true;
        }
        if (m_inServer) {
            if (m_depth == 2 && m_serverKey != ServerTimingKey::Other)
                serverWrong(
                    QStringLiteral("expected %1, got %2").arg(serverTimingExpected(m_serverKey), QLatin1String(got)));
            m_skipDepth = 1;
            return true;
        }
        if (m_depth == 1 && m_known && m_field == RequestField::Server && object) {
            m_inServer = true;
            m_record.server = ServerTimings(); // a repeated key: the last one counts
            ++m_depth;
            return true;
        }
        if (m_depth == 1 && m_known && m_field == RequestField::Itl && !object) {
            m_inItl = true;
            m_itlBad = false;
            m_itlIndex = 0;
            m_record.itlUs.clear();
            ++m_depth;
            return true;
        }
        if (m_depth == 1 && m_known)
            wrong(QStringLiteral("expected %1, got %2").arg(expected(m_field), QLatin1String(got)));
        m_skipDepth = 1; // unknown or wrong: read past it
        return true;
    }

    bool endContainer()
    {
        if (m_skipDepth > 0) {
            --m_skipDepth;
            return true;
        }
        if (m_inItl) {
            m_inItl = false;
            --m_depth;
            return true;
        }
        if (m_inServer) {
            m_inServer = false;
            --m_depth;
            return true;
        }
        --m_depth;
        return true;
    }

    bool inServer() const { return m_skipDepth == 0 && m_inServer && m_depth == 2; }

    void serverWrong(const QString& what)
    {
        problems.push_back(QStringLiteral("request.server.") + QString::fromStdString(m_key) + QStringLiteral(": ")
            + what + QStringLiteral("; left empty"));
    }

    bool serverNumber(double v, bool isInteger)
    {
        if (const QString problem = setServerTiming(m_record.server, m_serverKey, v, isInteger); !problem.isEmpty())
            serverWrong(problem);
        return true;
    }

    RequestRecord& m_record;
    const QString* m_sameRun;
    std::string m_key;
    RequestField m_field = RequestField::Type;
    bool m_known = false;
    int m_depth = 0;
    int m_skipDepth = 0;
    bool m_inItl = false;
    bool m_inServer = false;
    ServerTimingKey m_serverKey = ServerTimingKey::Other;
    bool m_itlBad = false;
    int m_itlIndex = 0;
};

} // namespace

RequestLineResult parseRequestLine(QByteArrayView line, qint64 lineNumber, RequestRecord* record,
    std::vector<RunFileIssue>& issues, const QString* sameRun, QString* syntaxError)
{
    *record = RequestRecord();
    RequestSax sax(*record, sameRun);
    const bool parsed = json::sax_parse(line.begin(), line.end(), &sax);
    if (!parsed && sax.errorAt >= 0) {
        *syntaxError = QStringLiteral("not valid JSON (at byte %1)").arg(sax.errorAt);
        return RequestLineResult::Invalid;
    }
    if (!parsed || !sax.topIsObject || !sax.isRequest)
        return RequestLineResult::NotRequest;
    for (const QString& problem : sax.problems)
        issues.push_back({ lineNumber, problem });
    for (const auto& [has, field, kind] :
        { std::tuple { sax.hasRun, "run", "a string" }, std::tuple { sax.hasId, "id", "an integer" },
            std::tuple { sax.hasSend, "t_send_us", "an integer" }, std::tuple { sax.hasOk, "ok", "a boolean" } }) {
        if (has)
            continue;
        // A present but wrong field was reported above; say "missing" only when it was.
        const QString prefix = QStringLiteral("request.") + QLatin1String(field) + QLatin1Char(':');
        const bool reported = std::any_of(
            sax.problems.begin(), sax.problems.end(), [&](const QString& p) { return p.startsWith(prefix); });
        if (!reported)
            issues.push_back({ lineNumber,
                QStringLiteral("%1 missing (expected %2); line skipped").arg(prefix, QLatin1String(kind)) });
        sax.skip = true;
    }
    if (sax.skip)
        return RequestLineResult::Skip;
    if (!sax.hasSched)
        record->tSchedUs = record->tSendUs;
    if (!sax.hasRepeat)
        record->probeRepeat = record->probe.isEmpty() ? -1 : 0;
    return RequestLineResult::Record;
}

} // namespace ks
