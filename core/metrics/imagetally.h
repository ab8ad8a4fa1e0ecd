#pragma once

#include <QtGlobal>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {

/// Images over a run's requests (sent, warm-up excluded): the summary's `images`
/// object, absent when no request carried one.
class ImageTally {
public:
    void add(int images, qint64 imageBytes)
    {
        m_perRequest.push_back(double(images));
        m_bytes.push_back(double(imageBytes));
        m_total += images;
    }
    /// {"total", "per_request_p50", "bytes_p50", "bytes_p99"}: bytes are a request's image files' bytes.
    void write(nlohmann::json& summary) const;

private:
    std::vector<double> m_perRequest;
    std::vector<double> m_bytes;
    qint64 m_total = 0;
};

} // namespace ks
