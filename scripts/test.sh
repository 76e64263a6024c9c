#!/usr/bin/env bash
# The README's test command: installs what the tests need (idempotent, fast when already there),
# then runs the whole suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every extra but live (xlwings drives Excel, which Linux lacks): the tests cover the optional torch
# runtime of the local embedder, autofill eval, the Cohere provider and batch --engine ray as well.
python3 -m pip install --quiet --disable-pip-version-check -e '.[test,torch,eval,cohere,rerank,ray]'
if [ -f scripts/install_test_deps.sh ]; then bash scripts/install_test_deps.sh; fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
exec python3 -m pytest -q "$@"
