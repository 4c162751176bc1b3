#!/usr/bin/env bash
# The report in a real browser (issue 8): builds `hetps report` from the committed fixture runs
# and asks headless Chromium whether every plot loaded (scripts/check-report-in-browser.mjs).
# The report and the screenshot stay in OUT_DIR for a person to look at.
#   scripts/test-report-in-browser.sh HETPS OUT_DIR
set -euo pipefail
hetps=$1
out=$2
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/tests/report/fixtures"
if [[ ! -f $root/node_modules/playwright-core/package.json ]]; then
  echo "test-report-in-browser: playwright-core is not installed; run scripts/install-deps.sh" >&2
  exit 1
fi
mkdir -p "$out"
"$hetps" report "$fixtures/compare-bsp-asp" "$fixtures/sapus" "$fixtures/sync-switch-old" \
  --out "$out/report"
node "$root/scripts/check-report-in-browser.mjs" "$out/report/report.html" "$out/screenshot.png"
