#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fa2 forward TFLOP/s per head dim for two builds (BEFORE, AFTER: results.json of one config),
and AFTER's TFLOP/s over the listed tile at or above each head dim (fa2_head_dims.h) on the same
shape: the "within 15% of the next larger supported tile" measure of issue 20.
  scripts/dev/head_dim_ratio_table.py BEFORE/results.json AFTER/results.json"""
import json
import sys

TILES = [32, 64, 96, 128, 160, 192, 224, 256]  # kernels/fa2/fa2_head_dims.h


def load(path):
    out = {}
    for c in json.load(open(path))['cases']:
        if c['status'] != 'ok' or c['backend'] != 'fa2':
            continue
        p = c['params']
        out[(p['B'], p['H'], p['T_q'], p['causal'], p['D'])] = c['tflops']
    return out


before, after = load(sys.argv[1]), load(sys.argv[2])
print('| shape | causal | D | before TFLOP/s | after | after/before | after / listed tile |')
print('|---|---|--:|--:|--:|--:|--:|')
for key in sorted(after):
    B, H, T, causal, D = key
    tile = after.get((B, H, T, causal, min(t for t in TILES if t >= D)))
    b = before.get(key)
    vs_before = f'{b:.1f} | {after[key]:.1f} | {after[key] / b:.3f}' if b else f'– | {after[key]:.1f} | –'
    vs_tile = f'{after[key] / tile:.3f}' if tile else '–'
    print(f'| B{B} H{H} T{T} | {"yes" if causal else "no"} | {D} | {vs_before} | {vs_tile} |')
