#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Phase times of transformer training-step results (fa2bench model sweeps and
scripts/torch_train_step.py output), one row per (run, T): forward, backward, optimizer and
step ms, so runs of one device call stand side by side.
  scripts/dev/step_phases_table.py NAME=results.json [NAME=results.json ...]"""
import json
import sys

PHASES = ['forward_ms', 'backward_ms', 'optimizer_ms', 'step_ms']
print('| run | backend | T | forward ms | backward ms | optimizer ms | step ms |')
print('|---|---|--:|--:|--:|--:|--:|')
for arg in sys.argv[1:]:
    name, path = arg.split('=', 1)
    for case in json.load(open(path))['cases']:
        if case.get('status') != 'ok':
            continue
        t = case['timing']
        cells = ' | '.join(f'{t[k]:.1f}' for k in PHASES)
        print(f"| {name} | {case['backend']} | {case['params']['T']} | {cells} |")
