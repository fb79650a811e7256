#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Paged against contiguous decode for two builds of one config (A, B: results.json of each):
median µs per case, B/A, and each build's paged/contiguous ratio.
  scripts/dev/paged_ab_table.py A/results.json B/results.json"""
import json
import sys


def load(path):
    return {c['id']: c['time_ms']['median'] * 1e3 for c in json.load(open(path))['cases']
            if c['status'] == 'ok'}


def paged_over_contiguous(d, key, base):
    return f'{d[key] / d[base]:.3f}' if key != base and key in d and base in d else ''


A, B = load(sys.argv[1]), load(sys.argv[2])
print('| case | layout | A µs | B µs | B/A | A paged/contiguous | B paged/contiguous |')
print('|---|---|--:|--:|--:|--:|--:|')
for key in sorted(A):
    base = key.split('/paged')[0]
    layout = key[len(base) + 1:] or 'contiguous'
    b = f'{B[key]:.1f} | {B[key] / A[key]:.3f}' if key in B else '– | –'
    print(f'| {base.split("/", 1)[1]} | {layout} | {A[key]:.1f} | {b} | '
          f'{paged_over_contiguous(A, key, base)} | {paged_over_contiguous(B, key, base)} |')
