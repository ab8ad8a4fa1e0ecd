// The Prometheus text parser and the gauge extraction (core/telemetry/prometheustext.h)
// on any body a /metrics endpoint can answer.
#include "fuzzinput.h"

#include "telemetry/prometheustext.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray text(reinterpret_cast<const char*>(data), qsizetype(size));
    const ks::PromParseResult r = ks::parsePrometheusText(text);
    const qsizetype lines = text.count('\n') + 1;
    KS_FUZZ_CHECK(r.malformedLines >= 0);
    KS_FUZZ_CHECK(qsizetype(r.samples.size()) + r.malformedLines <= lines);
    for (const ks::PromSample& s : r.samples)
        KS_FUZZ_CHECK(!s.name.isEmpty());
    const ks::ServerGauges g = ks::extractServerGauges(r.samples);
    KS_FUZZ_CHECK(g.any() == !g.engine.isEmpty());
    return 0;
}
