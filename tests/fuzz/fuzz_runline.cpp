// The run-file reader (core/store/runline.h) on any lines, as readRunFile feeds
// it, then what `report` does with the result: the experiment's SLO, a summary
// per run and its table. A run file is user input (edited, truncated, foreign).
#include "fuzzinput.h"

#include "metrics/runsummary.h"
#include "store/runline.h"

#include <map>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char*>(data), qsizetype(size));
    std::vector<ks::RunFileIssue> issues;
    std::map<QString, std::vector<ks::RequestRecord>> runs;
    QString lastRun;
    nlohmann::json experiment;
    qint64 lineNumber = 0;
    qsizetype pos = 0;
    while (pos < input.size()) {
        qsizetype end = input.indexOf('\n', pos);
        if (end < 0)
            end = input.size();
        const QByteArrayView line = input.sliced(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        const std::size_t issuesBefore = issues.size();
        ks::RunLine decoded = ks::readRunLine(line, lineNumber, issues, lastRun.isEmpty() ? nullptr : &lastRun);
        for (std::size_t i = issuesBefore; i < issues.size(); ++i)
            KS_FUZZ_CHECK(issues[i].line == lineNumber && !issues[i].message.isEmpty());
        if (decoded.kind == ks::RunLine::Kind::Skipped)
            KS_FUZZ_CHECK(issues.size() > issuesBefore);
        if (decoded.kind != ks::RunLine::Kind::Blank && decoded.kind != ks::RunLine::Kind::Skipped
            && decoded.kind != ks::RunLine::Kind::Unknown && decoded.kind != ks::RunLine::Kind::Experiment
            && decoded.kind != ks::RunLine::Kind::Search)
            KS_FUZZ_CHECK(!decoded.run.isEmpty() && decoded.run.size() <= ks::kMaxLabelChars);
        if (decoded.object.is_object())
            (void)decoded.object.dump(); // as replay does: recursive, so the reader bounds the depth
        switch (decoded.kind) {
        case ks::RunLine::Kind::Experiment:
            experiment = std::move(decoded.object);
            break;
        case ks::RunLine::Kind::Run:
            // readRunFile's own accessors: the reader promises they cannot throw.
            (void)decoded.object.value("config", std::string());
            (void)decoded.object.value("arm", std::string());
            break;
        case ks::RunLine::Kind::Request:
            KS_FUZZ_CHECK(decoded.request.run == decoded.run);
            lastRun = decoded.run;
            runs[decoded.run].push_back(std::move(decoded.request));
            break;
        default:
            break;
        }
    }
    const ks::Slo slo = ks::experimentSlo(experiment);
    KS_FUZZ_CHECK(slo.ttftMs >= 0 && slo.tpotMs >= 0);
    for (const auto& [run, records] : runs) {
        const nlohmann::json summary = ks::summarizeRun(run, QString(), QString(), records, slo);
        KS_FUZZ_CHECK(!ks::formatSummaryTable(summary).isEmpty());
    }
    return 0;
}
