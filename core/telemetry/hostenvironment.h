#pragma once

#include <QByteArray>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace ks {

/// Where a run was measured, for the experiment line's `environment`: host
/// name, CPU model and count, memory, OS and kernel, knobscope's version and,
/// when nvidia-smi answers, each GPU's name, driver and memory. nvidia-smi is
/// $KNOBSCOPE_NVIDIA_SMI or the one on PATH; it gets 3 s. Fields this machine
/// does not tell are left out.
nlohmann::json hostEnvironment();

/// The nvidia-smi to run: $KNOBSCOPE_NVIDIA_SMI when set (tests point it at a
/// stand-in script), else the one on PATH; empty when there is neither.
QString nvidiaSmiProgram();

/// The GPUs in `nvidia-smi --query-gpu=name,driver_version,memory.total
/// --format=csv,noheader,nounits` output: [{"name", "driver", "memory_mib"}].
/// Lines that do not have the three fields are skipped.
nlohmann::json parseNvidiaSmiGpus(const QByteArray& csv);

/// What differs between two environments in a way that can move latency or
/// throughput (CPU, core count, memory, GPUs and their driver, OS, knobscope's
/// version), one phrase each; empty when nothing does or either is unknown.
QStringList environmentDifferences(const nlohmann::json& a, const nlohmann::json& b);

/// One line for people: "host · CPU × N · 62 GiB · GPU × 1 (driver) · OS · knobscope V".
QString environmentText(const nlohmann::json& environment);

} // namespace ks
