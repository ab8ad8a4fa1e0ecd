#include "compare/sequentialconfidence.h"

namespace ks {

int plannedLooks(const nlohmann::json& spec)
{
    if (!spec.is_object())
        return 1;
    const auto repeats = spec.find("repeats");
    if (repeats == spec.end() || !repeats->is_object() || !repeats->contains("until"))
        return 1;
    const auto whole = [&](const char* key, int fallback) {
        const auto v = repeats->find(key);
        return v != repeats->end() && v->is_number_integer() ? v->get<int>() : fallback;
    };
    const int min = std::max(1, whole("min", 2));
    const int max = whole("max", min);
    return max >= min ? max - min + 1 : 1;
}

double roundsConfidence(const nlohmann::json& spec)
{
    return 1.0 - 0.05 / double(plannedLooks(spec));
}

} // namespace ks
