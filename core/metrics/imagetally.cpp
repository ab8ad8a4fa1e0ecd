#include "metrics/imagetally.h"

#include "metrics/percentiles.h"

namespace ks {

void ImageTally::write(nlohmann::json& summary) const
{
    if (m_total == 0)
        return;
    summary["images"] = { { "total", m_total }, { "per_request_p50", percentile(m_perRequest, 50) },
        { "bytes_p50", percentile(m_bytes, 50) }, { "bytes_p99", percentile(m_bytes, 99) } };
}

} // namespace ks
