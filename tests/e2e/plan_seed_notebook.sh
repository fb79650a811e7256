# SPDX-License-Identifier: Apache-2.0
# The notebook's shape algebra without a GPU: 256 MiB of scores vs 32.5 MiB of flash state.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" plan --config "$SRC/configs/seed_notebook.json"
expect_output "256.0 MiB"
expect_output "32.5 MiB"
expect_output "pass"
# The article's T=16K naive case needs more than 141 GB; plan says it does not fit.
expect_exit 0 "$BIN" plan --config "$SRC/configs/seed_article.json" --memory 141GB
expect_output "NO"
echo "ok"
