#!/usr/bin/env python3
"""ONNX Runtime's peak resident memory serving one graph, in a process that imports only
onnxruntime and numpy: loads the graph, runs the given batches twice, prints JSON with the
process's peak RSS and its RSS after the imports (MiB). sentence_twin.py --rss runs it once per
graph, beside the Ember row measured alone in its process, so each figure is that program's own.
    python3 bench/ort_peak_rss.py model.onnx batches.npz THREADS
batches.npz holds x0, m0, x1, m1, ...: input_ids and attention_mask per batch (int64).
"""
import json
import resource
import sys

import numpy as np
import onnxruntime as ort


def peak_rss_mib():
    """VmHWM, the peak of this program's own memory map: ru_maxrss keeps the peak from before
    exec, which for a child of sentence_twin.py is the parent's size with torch loaded."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def ort_runner(path, threads):
    """One CPU session at `threads` intra-op threads, every graph optimization on; returns
    run(input_ids, attention_mask) -> [last_hidden_state]."""
    o = ort.SessionOptions()
    o.intra_op_num_threads = threads
    o.inter_op_num_threads = 1
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    s = ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])
    return lambda x, m: s.run(["last_hidden_state"], {"input_ids": x, "attention_mask": m})


def main():
    path, batches, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    after_import = peak_rss_mib()
    run = ort_runner(path, threads)
    data = np.load(batches)
    for _ in range(2):
        for i in range(len(data.files) // 2):
            run(data[f"x{i}"], data[f"m{i}"])
    print(json.dumps({"peak_rss_mib": peak_rss_mib(), "after_import_mib": after_import}))


if __name__ == "__main__":
    main()
