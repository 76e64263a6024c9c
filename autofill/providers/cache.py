"""On-disk cache of chat responses, so an identical re-run makes zero API calls.

Key: sha256 of the endpoint (provider, base URL, which for Azure names the resource, model or Azure
deployment, API version) and the request (messages, temperature, max_tokens, json_mode). The endpoint
is part of it because the same model name behind another URL is another model: a test server's or a
local model's answers must never be served to a run against the real API. The API key is not (a key
must never reach disk), nor the user, password or query values a URL carries: the key holds a hash of
the whole URL instead, and an entry names its endpoint by the URL made safe (autofill/redact.py).
`refresh` (`run --fresh`) skips reading and writes what the model answers now. One JSON file per
entry under `<cache_dir>/<2 hex>/<key>.json`, written to a temporary file in the same folder and
renamed into place, so concurrent threads and processes never see half an entry; the worst race is
two identical calls both going to the API.

A reply the run could not use (it could not be parsed, or its answer failed a check of form) is
forgotten (`forget_reply`) as soon as the run has judged it, so a re-run asks the model again instead of
replaying it; each reply carries the entry that holds it (`ChatResult.cache_entry`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit, urlunsplit

from autofill.providers.base import ChatMessage, ChatModel, ChatResult
from autofill.redact import url_identity

log = logging.getLogger("autofill.providers")

CACHE_VERSION = 2  # bump when the key or entry layout changes (2: the endpoint joined the key)


def _message_pair(message: ChatMessage | dict) -> list[str]:
    if isinstance(message, dict):
        return [str(message["role"]), str(message["content"])]
    return [message.role, message.content]


def endpoint_identity(chat: Any) -> dict[str, str]:
    """Where `chat` sends its calls, for the key: the base URL (scheme and host lower-cased, no trailing
    slash) as it may be shown (autofill/redact.url_identity: no user, password or query value; a SHA-256
    of the whole URL beside it when it carried any, so two keys in a URL stay two endpoints) and the API
    version (Azure); empty for a chat that does not say (test doubles)."""
    endpoint = getattr(chat, "endpoint", None)
    if endpoint is None:
        return {}
    url = str(getattr(endpoint, "base_url", "") or "").strip()
    parts = urlsplit(url)
    if parts.scheme and parts.netloc:
        user, at, host = parts.netloc.rpartition("@")
        url = urlunsplit((parts.scheme.lower(), user + at + host.lower(), parts.path.rstrip("/"), parts.query, ""))
    return {**url_identity(url), "api_version": str(getattr(endpoint, "api_version", "") or "")}


def cache_key(provider: str, model: str, messages: Sequence[ChatMessage], temperature: float,
              max_tokens: int, json_mode: bool, endpoint: dict[str, str] | None = None) -> str:
    material = {
        "v": CACHE_VERSION,
        "provider": provider,
        "endpoint": endpoint or {},
        "model": model,
        "messages": [_message_pair(m) for m in messages],
        "temperature": float(temperature),
        "max_tokens": int(max_tokens),
        "json_mode": bool(json_mode),
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedChat:
    """A ChatModel that answers from disk when it has seen the exact request before.

    A hit returns the stored text with `cached=True` and the original token counts (so reports can
    show what the call cost the first time); the pipeline counts hits as cached calls, not API calls."""

    def __init__(self, chat: ChatModel, cache_dir: Path | str, provider: str, refresh: bool = False) -> None:
        self.chat = chat
        self.cache_dir = Path(cache_dir)
        self.provider = provider
        self.endpoint_identity = endpoint_identity(chat)
        self.refresh = refresh  # --fresh: ask the model again and overwrite what the cache holds
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        # Called once, just before the first call that is not in the cache goes out: work a run needs only
        # when it calls the model can wait until then (answer/row_pool.py opens the store's Chroma then).
        self.on_miss: Any = None

    @property
    def model(self) -> str:
        return self.chat.model

    def path_for(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 0.0,
        max_tokens: int = 1200,
        json_mode: bool = False,
    ) -> ChatResult:
        key = cache_key(self.provider, self.model, messages, temperature, max_tokens, json_mode,
                        self.endpoint_identity)
        path = self.path_for(key)
        hit = None if self.refresh else self._read(path)
        if hit is not None:
            hit.cache_entry = str(path)
            with self._lock:
                self.hits += 1
            return hit
        with self._lock:
            hook, self.on_miss = self.on_miss, None
        if hook is not None:
            hook()
        result = self.chat.complete(messages, temperature=temperature, max_tokens=max_tokens, json_mode=json_mode)
        with self._lock:
            self.misses += 1
        if self._write(path, result):
            result.cache_entry = str(path)
        return result

    def _read(self, path: Path) -> ChatResult | None:
        try:
            entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return ChatResult(
                text=str(entry["text"]),
                model=str(entry["model"]),
                prompt_tokens=int(entry.get("prompt_tokens", 0)),
                completion_tokens=int(entry.get("completion_tokens", 0)),
                cached=True,
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # A damaged entry (disk full, manual edit) is a miss; the fresh answer overwrites it.
            log.warning("ignoring unreadable cache entry %s: %s", path.name, exc)
            return None

    def _write(self, path: Path, result: ChatResult) -> bool:
        entry = {
            "text": result.text,
            "model": result.model,
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "provider": self.provider,
            "base_url": self.endpoint_identity.get("base_url", ""),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh, ensure_ascii=False)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            # The answer is good; failing to cache it must not fail the row.
            log.warning("could not write LLM cache entry: %s", exc)
            return False
        return True


def forget_reply(result: ChatResult) -> None:
    """Never serve `result` again: a re-run asks the model anew (see the module docstring)."""
    if result.cache_entry:
        try:
            Path(result.cache_entry).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not remove the cached reply %s: %s", Path(result.cache_entry).name, exc)


def refresh_cache(chat: Any) -> None:
    """`run --fresh`: `chat`'s replies are asked for again (and the cache refreshed), none read."""
    if isinstance(chat, CachedChat):
        chat.refresh = True
