# SPDX-License-Identifier: Apache-2.0
"""A config's expanded cases, as `fa2bench plan --cases-json` writes them, for the scripts that
run the same cases elsewhere (torch_sdpa_baseline.py, torch_train_step.py)."""
import json, os, subprocess, sys, tempfile


def expand_cases(fa2bench, config, who):
    """The plan's {"config", "cases"}; exits 2 naming `who` when fa2bench cannot expand it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.json")
        proc = subprocess.run([fa2bench, "plan", "--config", config, "--cases-json", path],
                              capture_output=True, text=True)
        if not os.path.exists(path):
            print(f"{who}: `{fa2bench} plan` could not expand {config}:\n{proc.stderr.strip()}",
                  file=sys.stderr)
            sys.exit(2)
        with open(path) as f:
            return json.load(f)
