#!/usr/bin/env python3
"""Times Ember's train/infer rows in whichever PyTorch runs this script and prints them as
JSON lines {"name", "seconds", "torch"}; compare_peers.py runs it under each Python peer.

    python3 bench/torch_rows.py train_step/cpu/64/threads:1 infer/cpu/1/threads:2 ...
"""
import json
import sys

import torch

from torch_models import model_workload, timeit

for row in sys.argv[1:]:
    fn = model_workload(row)
    if fn is not None:
        print(json.dumps({"name": row, "seconds": timeit(fn), "torch": torch.__version__}), flush=True)
