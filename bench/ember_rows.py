"""Runs an Ember benchmark binary and reads its rows; shared by compare_torch.py and
compare_builds.py."""
import json
import subprocess


def run_ember(binary, flt, repetitions, interleave=False):
    """(name, seconds per iteration, paired ratio or None) per row, in the binary's own
    order; with repetitions > 1 the rows are
    repeated in random interleaved order and the median is kept, because on a small shared
    machine one row's timing can drift by tens of percent from one second to the next.
    interleave shuffles the rows' order even for one repetition."""
    cmd = [binary, "--benchmark_format=json"]
    if flt:
        cmd.append("--benchmark_filter=" + flt)
    if interleave and repetitions == 1:
        cmd.append("--benchmark_enable_random_interleaving=true")
    if repetitions > 1:
        cmd += [f"--benchmark_repetitions={repetitions}", "--benchmark_enable_random_interleaving=true",
                "--benchmark_report_aggregates_only=true"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    if not out.strip():  # the filter matched no row of this binary
        return []
    rows = [b for b in json.loads(out)["benchmarks"]
            if repetitions == 1 or b.get("aggregate_name") == "median"]
    # Interleaving shuffles the rows; the registration indices restore the binary's order.
    rows.sort(key=lambda b: (b["family_index"], b["per_family_instance_index"]))
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return [(b["run_name"], b["real_time"] * scale[b.get("time_unit", "ns")], b.get("ratio")) for b in rows]


def fmt_time(seconds):
    """A time with a unit that keeps three significant figures visible."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:8.3f} {unit:2s}"
    return f"{seconds / 1e-9:8.1f} ns"
