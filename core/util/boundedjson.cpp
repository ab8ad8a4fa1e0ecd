#include "util/boundedjson.h"

namespace ks {

nlohmann::json parseJsonBounded(QByteArrayView bytes, bool* tooDeep)
{
    using json = nlohmann::json;
    *tooDeep = false;
    const json::parser_callback_t depthGuard = [tooDeep](int depth, json::parse_event_t event, json&) {
        if (depth < kMaxNesting
            || (event != json::parse_event_t::object_start && event != json::parse_event_t::array_start))
            return true;
        *tooDeep = true;
        return false;
    };
    return json::parse(bytes.begin(), bytes.end(), depthGuard, false);
}

nlohmann::json parseJsonGuarded(QByteArrayView bytes)
{
    bool tooDeep = false;
    nlohmann::json parsed = parseJsonBounded(bytes, &tooDeep);
    return tooDeep ? nlohmann::json(nlohmann::json::value_t::discarded) : parsed;
}

} // namespace ks
