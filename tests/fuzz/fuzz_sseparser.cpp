// The SSE parser on any bytes in any split (core/sse/sseparser.h): the events,
// comments and end state must not depend on how the stream was cut into reads,
// and a parser with a small event limit must never hand on a larger event.
#include "fuzzinput.h"

#include "sse/sseparser.h"

#include <utility>
#include <vector>

namespace {

struct Outcome {
    std::vector<std::pair<QByteArray, QByteArray>> events; // data, name
    int comments = 0;
    bool partial = false;
    bool failed = false;
};

constexpr qsizetype kSmallLimit = 64;

template <typename Feed> Outcome parse(qsizetype maxEventBytes, Feed&& feedAll)
{
    ks::SseParser parser(maxEventBytes);
    Outcome out;
    auto onEvent = [&](const ks::SseParser::Event& e) {
        KS_FUZZ_CHECK(!out.failed); // nothing after EventTooLarge
        KS_FUZZ_CHECK(e.data.size() <= maxEventBytes);
        out.events.emplace_back(e.data, e.name);
    };
    feedAll([&](const char* bytes, qsizetype size) {
        if (parser.feed(bytes, size, onEvent) == ks::SseParser::Status::EventTooLarge)
            out.failed = true;
    });
    out.comments = parser.comments();
    out.partial = parser.hasPartialEvent();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const ksfuzz::SplitInput input(data, size);
    const auto inReads = [&](auto&& feed) { input.forEachRead(feed); };
    const auto atOnce = [&](auto&& feed) { feed(input.stream.constData(), input.stream.size()); };

    // Inputs stay far below the default 1 MiB limit, so both must succeed and agree.
    const Outcome split = parse(1 << 20, inReads);
    const Outcome whole = parse(1 << 20, atOnce);
    KS_FUZZ_CHECK(!split.failed && !whole.failed);
    KS_FUZZ_CHECK(split.events == whole.events);
    KS_FUZZ_CHECK(split.comments == whole.comments);
    KS_FUZZ_CHECK(split.partial == whole.partial);

    // The limit path: where it cuts may depend on the split, but no event over it gets out.
    const Outcome limited = parse(kSmallLimit, inReads);
    if (!limited.failed)
        KS_FUZZ_CHECK(limited.events == whole.events);
    return 0;
}
