/* The hardware figures `kgantt record --hw` samples, one list for every layer: the
 * recorder (which CUPTI metrics give each figure), the spool's sample records, the
 * trace's hw_samples columns, the model, the analysis and the charts.
 *
 * X(ID, column, unit, label)
 *   ID      KG_HW_<ID>, the figure's index in a sample's values
 *   column  its column in the trace's hw_samples table
 *   unit    KG_HW_PCT (0-100), KG_HW_BPS (bytes per second) or KG_HW_HZ
 *   label   what charts and reports call it
 *
 * The order is the recorder's priority when the GPU cannot count everything in one pass:
 * the first figures are kept. Append new figures at the end: a spool or trace written with
 * fewer figures stays readable (the missing ones read as absent). */
#ifndef KGANTT_HW_FIGURES_H
#define KGANTT_HW_FIGURES_H

#include <math.h>

enum kg_hw_unit { KG_HW_PCT = 0, KG_HW_BPS = 1, KG_HW_HZ = 2 };

#define KG_HW_FIGURES(X)                                                           \
	X(SM_ACTIVE, sm_active_pct, KG_HW_PCT, "SM active")                        \
	X(OCCUPANCY, occupancy_pct, KG_HW_PCT, "achieved occupancy")               \
	X(DRAM_READ, dram_read_bps, KG_HW_BPS, "DRAM read")                        \
	X(DRAM_WRITE, dram_write_bps, KG_HW_BPS, "DRAM write")                     \
	X(DRAM_PEAK, dram_peak_pct, KG_HW_PCT, "DRAM bandwidth used")              \
	X(TENSOR, tensor_active_pct, KG_HW_PCT, "tensor pipes active")             \
	X(SM_CLOCK, sm_clock_hz, KG_HW_HZ, "SM clock")                             \
	X(PCIE_READ, pcie_read_bps, KG_HW_BPS, "PCIe read")                        \
	X(PCIE_WRITE, pcie_write_bps, KG_HW_BPS, "PCIe write")                     \
	X(NVLINK_RX, nvlink_rx_bps, KG_HW_BPS, "NVLink received")                  \
	X(NVLINK_TX, nvlink_tx_bps, KG_HW_BPS, "NVLink sent")                      \
	X(CTXSW, ctxsw_pct, KG_HW_PCT, "context switching")

enum kg_hw_figure {
#define KG_HW_ENUM_(id, column, unit, label) KG_HW_##id,
	KG_HW_FIGURES(KG_HW_ENUM_)
#undef KG_HW_ENUM_
	KG_HW_N
};

struct kg_hw_figure_info {
	const char *column;
	enum kg_hw_unit unit;
	const char *label;
};

static const struct kg_hw_figure_info kg_hw_figure_info[KG_HW_N] = {
#define KG_HW_INFO_(id, column, unit, label) {#column, unit, label},
	KG_HW_FIGURES(KG_HW_INFO_)
#undef KG_HW_INFO_
};

/* The most a figure can be on any GPU: a share 100 % (the tensor pipes 400 %: their
 * counter adds up an SM's four sub-partitions), 1e14 B/s (twenty times an H200's DRAM),
 * 1e10 Hz. */
static inline double kg_hw_ceiling(enum kg_hw_figure f)
{
	if (f == KG_HW_TENSOR)
		return 400;
	return kg_hw_figure_info[f].unit == KG_HW_PCT ? 100
	       : kg_hw_figure_info[f].unit == KG_HW_BPS ? 1e14
							: 1e10;
}

/* A figure read from a trace, or NaN (not taken) where it cannot be true: not finite,
 * negative, or more than 10 % above its ceiling. Up to 10 % above is the counters' skew
 * (a ratio's two counters are read at slightly different instants: ctxsw_pct read 102 %
 * on the H200), taken as the ceiling. */
static inline float kg_hw_taken(enum kg_hw_figure f, double v)
{
	double top = kg_hw_ceiling(f);
	if (!(v >= 0 && v <= 1.1 * top))
		return (float)NAN;
	return (float)(v < top ? v : top);
}

/* A sample whose context-switching share is at least this: the GPU switched between
 * processes' contexts in it (time-slicing). On an H200 two processes sharing the GPU gave
 * 5-100 % every ~2.3 ms, a single process under 1 % but for a sample or two at its start. */
#define KG_HW_CTXSW_MARK_PCT 5.0

/* ", sm_active_pct REAL, occupancy_pct REAL, ..." for the trace's CREATE TABLE */
#define KG_HW_SQL_COL_(id, column, unit, label) ", " #column " REAL"
#define KG_HW_SQL_COLUMNS KG_HW_FIGURES(KG_HW_SQL_COL_)

#endif
