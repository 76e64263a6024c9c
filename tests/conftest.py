"""Test-wide guards and fixtures.

No test may reach the network: any socket connection to a non-loopback address fails the test at
once. Provider SDKs are exercised against loopback servers the tests start themselves."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

# Loopback OpenAI- and Cohere-compatible servers: fixtures `llm_server`, `cohere_server`.
pytest_plugins = ["tests.llm_server"]

# Keep every library offline: Hugging Face, sentence-transformers, Chroma telemetry.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# A developer's real keys must never leak into a test run.
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "COHERE_API_KEY", "COHERE_BASE_URL", "AUTOFILL_CHROMA_URL",
              "AUTOFILL_WORKSPACE"):
    os.environ.pop(_name, None)


class NetworkBlocked(RuntimeError):
    pass


def _is_loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a hostname other than localhost would need DNS: refuse


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _check(address) -> None:
    if isinstance(address, tuple) and not _is_loopback(address[0]):
        raise NetworkBlocked(f"test tried to reach the network: {address!r}")


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _check(address)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _is_loopback(host):
        raise NetworkBlocked(f"test tried to resolve a network host: {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect
socket.socket.connect_ex = _guarded_connect_ex
socket.getaddrinfo = _guarded_getaddrinfo


@pytest.fixture
def workspace(tmp_path):
    """An empty workspace folder (vectordb/, reports_out/, templates/ are made on demand)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


# The longest files first (seconds each on the 2-core machine, `--durations`): whole files go to one worker
# each (--dist loadfile), and a long file handed out last would keep one worker busy alone at the end.
LONGEST_FIRST = ("test_ray_engine.py", "test_ingest_pipeline.py", "test_portfolio_runner.py",
                 "test_cli_languages.py", "test_review_app.py", "test_workbook_recovery.py", "test_outputlock.py",
                 "test_cli_cost.py", "test_review_app_browser.py", "test_long_rows.py", "test_review_app_forms.py",
                 "test_store_snapshot.py", "test_contextualize.py", "test_plan.py", "test_pdf_stream.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
