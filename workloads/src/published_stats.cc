// Every number here was computed once from a public trace under
// /work/shared/traces (paths relative to it) and pasted; see
// docs/workloads.md for the figures they reproduce.
#include "utilsim/workloads/published_stats.h"

namespace utilsim::published {
namespace {

// acmetrace-summary/util_cdf_long.csv, series philly_gpu_util_pct (1,000 CDF
// points; AcmeTrace data/utilization/util_pkl/util_gpu_philly.pkl, Hu et al.
// NSDI'24, computed from Philly cluster_gpu_util). Knots: the end of the point
// mass at 0 (CDF 32.23%), every 5% from 35% to 90% (plus 33.5% and 37.5%
// where the curve bends), and the start of the point mass at 100 (93.09%).
// x = first value whose CDF reaches p, linear between the file's points.
// Mean of this table 47.12% (the file's curve: 47.20%).
constexpr QuantilePoint kPhillyGpuUtilPct[] = {
    {0.0, 0.0},   {0.3223, 0.0}, {0.335, 2.6}, {0.35, 6.1},  {0.375, 13.8},   {0.40, 22.0},
    {0.45, 37.1}, {0.50, 48.4},  {0.55, 58.4}, {0.60, 69.3}, {0.65, 79.3},    {0.70, 87.3},
    {0.75, 92.0}, {0.80, 96.4},  {0.85, 98.3}, {0.90, 99.3}, {0.9309, 100.0}, {1.0, 100.0},
};

// philly-derived/alibaba_analysis/philly_runtime.csv (column runtime, s;
// 83,154 Philly jobs from alibaba/clusterdata cluster-trace-gpu-v2020
// analysis). Sample quantiles (linear, "type 7"), rounded to 1 s; denser in
// the tail, which carries most of the mean. File: median 1,186 s, mean
// 14,613 s, max 4,628,239 s; capped at 7 days the file's mean is 12,484 s and
// this table's 12,598 s.
constexpr QuantilePoint kPhillyRuntimeSeconds[] = {
    {0.0, 0},         {0.005, 12},    {0.01, 17},       {0.02, 25},      {0.03, 38},
    {0.04, 44},       {0.05, 48},     {0.075, 56},      {0.1, 61},       {0.125, 65},
    {0.15, 68},       {0.175, 71},    {0.2, 76},        {0.225, 89},     {0.25, 131},
    {0.275, 178},     {0.3, 229},     {0.35, 428},      {0.4, 630},      {0.45, 889},
    {0.5, 1186},      {0.55, 1500},   {0.6, 1871},      {0.65, 2242},    {0.7, 2590},
    {0.75, 3342},     {0.8, 4699},    {0.825, 5588},    {0.85, 6300},    {0.875, 9151},
    {0.9, 12859},     {0.91, 15081},  {0.92, 18842},    {0.93, 23848},   {0.94, 31999},
    {0.95, 49948},    {0.96, 69287},  {0.97, 101863},   {0.975, 127174}, {0.98, 167784},
    {0.985, 201023},  {0.99, 287283}, {0.9925, 371497}, {0.995, 484497}, {0.9975, 771933},
    {0.999, 1361015}, {1.0, 4628239},
};

// alibaba-gpu-v2023/openb_pod_list_default.csv: the 3,986 pods with
// num_gpu >= 1 and gpu_milli == 1000 (whole GPUs); cpu_milli / num_gpu and
// memory_mib / num_gpu, sample quantiles (type 7). Medians 11,300 milli-cores
// and 48,128 MiB per GPU; the most common node (G2) has 96 cores, 8 GPUs.
constexpr QuantilePoint kOpenbCpuMilliPerGpu[] = {
    {0.0, 1000},   {0.05, 3152},   {0.1, 3152},   {0.15, 4000},  {0.2, 8000},
    {0.25, 9810},  {0.3, 11300},   {0.4, 11300},  {0.5, 11300},  {0.6, 11400},
    {0.7, 11908},  {0.75, 12000},  {0.8, 14200},  {0.85, 15700}, {0.9, 16000},
    {0.95, 18708}, {0.975, 18708}, {0.99, 24200}, {1.0, 24200},
};
constexpr QuantilePoint kOpenbMemMibPerGpu[] = {
    {0.0, 0},      {0.05, 5600},   {0.1, 5600},   {0.15, 16384}, {0.2, 24576},
    {0.25, 24576}, {0.3, 32768},   {0.4, 47104},  {0.5, 48128},  {0.6, 49152},
    {0.7, 49152},  {0.75, 49152},  {0.8, 58368},  {0.85, 58368}, {0.9, 64512},
    {0.95, 77824}, {0.975, 93184}, {0.99, 93184}, {1.0, 125952},
};

// aist-aaic/aaicwl-{2017Q3,2017Q4,2018Q1}.csv.gz: jobs with termcode 0, 1 or
// 3 and 1 <= walltime <= walltime_req (228,537). 32.3% requested the queue
// maximum (259,200 or 259,199 s), 36.0% 86,400 s. Of the rest, those with
// walltime >= 60 s (37,162): quantiles of walltime_req / walltime.
constexpr QuantilePoint kAaicWalltimeFactor[] = {
    {0.0, 1.0},   {0.05, 1.68}, {0.1, 2.52},    {0.2, 3.75},     {0.3, 4.61},
    {0.4, 5.43},  {0.5, 9.21},  {0.6, 12.62},   {0.7, 19.41},    {0.8, 33.96},
    {0.9, 55.67}, {0.95, 97.3}, {0.99, 373.68}, {1.0, 10704.42},
};
// Same file: the most requested values outside the two modes (3 min ... 7 d).
constexpr int64_t kAaicRoundWalltimes[] = {
    180,   300,   600,   1800,  3600,  7200,   10800,  14400,
    18000, 21600, 43200, 64800, 86400, 172800, 259200, 604800,
};

// Philly (Jeon et al., ATC'19). The single-GPU share is set so that the mean
// is the published 1.928 GPUs per GPU job (acmetrace-summary/
// cluster_summary.csv, row Philly, avg_gpu_num; median 1). The split of the
// multi-GPU rest is that of the 5,884 power-of-two multi-GPU Philly jobs in
// philly-derived/dre_job_windows/sampled_jobs.json (DRE's selection: run
// time >= 5 min, Pass or Failed, Sep-Dec 2017; 2: 507, 4: 2,569,
// 8: 2,361, 16: 336, 32: 100, 64 and 128: 11, folded into 64; mean 6.706):
// p1 = 1 - 0.928 / (6.706 - 1) = 0.8374. Microsoft ITP (2021,
// microsoft-itp-elasticflow, 69,351 jobs) has 83.2% single-GPU jobs.
constexpr GpuCountShare kPhillyGpuCountShares[] = {
    {1, 0.8374},    {2, 0.01401},   {4, 0.07101},   {8, 0.06526},
    {16, 0.009287}, {32, 0.002764}, {64, 0.000304},
};

// helios-derived/venus_lucid/cluster_throughput.csv (SenseTime Venus,
// 2020-04-01 .. 2020-09-28, 10-minute bins): column submit_gpu_job summed by
// hour of day and divided by the mean over hours. Peak 16:00-18:00 (1.73x),
// trough 06:00 (0.19x). Hu et al. (SC'21) describe a similar day/night
// submission pattern for Helios.
constexpr double kVenusHourly[] = {
    0.897, 0.658, 0.600, 0.384, 0.268, 0.205, 0.187, 0.224, 0.374, 0.796, 1.295, 1.474,
    1.164, 1.299, 1.559, 1.656, 1.734, 1.733, 1.282, 1.313, 1.345, 1.364, 1.149, 1.038,
};

// philly-derived/helios_artifact/philly_vc.csv: node quota of each of the 11
// Philly virtual clusters in Helios' QSSF simulator (352 nodes).
constexpr TenantShare kPhillyVcs[] = {
    {"vc6214e9", 64}, {"vcb436b2", 64}, {"vcee9e8c", 64}, {"vc7f04ca", 32},
    {"vc6c71a0", 32}, {"vc0e4a51", 32}, {"vc11cb48", 16}, {"vce13805", 16},
    {"vc2869ce", 16}, {"vced69ec", 8},  {"vc103959", 8},
};

}  // namespace

std::span<const QuantilePoint> PhillyGpuUtilPct() { return kPhillyGpuUtilPct; }
std::span<const QuantilePoint> PhillyRuntimeSeconds() { return kPhillyRuntimeSeconds; }
std::span<const QuantilePoint> OpenbCpuMilliPerGpu() { return kOpenbCpuMilliPerGpu; }
std::span<const QuantilePoint> OpenbMemMibPerGpu() { return kOpenbMemMibPerGpu; }
std::span<const QuantilePoint> AaicWalltimeFactor() { return kAaicWalltimeFactor; }
std::span<const int64_t> AaicRoundWalltimesSeconds() { return kAaicRoundWalltimes; }
std::span<const GpuCountShare> PhillyGpuCountShares() { return kPhillyGpuCountShares; }
std::span<const double> VenusHourlySubmitProfile() { return kVenusHourly; }
std::span<const TenantShare> PhillyVcShares() { return kPhillyVcs; }

}  // namespace utilsim::published
