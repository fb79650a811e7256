# SPDX-License-Identifier: Apache-2.0
"""A/B table of one call's sweeps: DIR/a_N (HEAD), DIR/b_N (patched), DIR/cudnn; best TFLOP/s of
the rounds per case, b / a and b / cuDNN.   python3 ab_table.py DIR"""
import collections
import glob
import json
import os
import sys

root = sys.argv[1]
best = collections.defaultdict(dict)
for d in sorted(glob.glob(os.path.join(root, '*'))):
    side = os.path.basename(d).split('_')[0]
    path = os.path.join(d, 'results.jsonl')
    if not os.path.exists(path):
        continue
    for line in open(path):
        c = json.loads(line)
        if c.get('status') != 'ok':
            continue
        case = c['id'].split('/', 1)[1]
        best[case][side] = max(best[case].get(side, 0.0), c['tflops'])
nan = float('nan')
print('| case | HEAD TFLOP/s | patched | patched / HEAD | cuDNN | patched / cuDNN |')
print('|---|--:|--:|--:|--:|--:|')
for case in sorted(best):
    a, b, c = (best[case].get(s, nan) for s in ('a', 'b', 'cudnn'))
    print('| %s | %.1f | %.1f | %.3f | %.1f | %.3f |' % (case, a, b, b / a, c, b / c))
