"""autofill/redact.py: URLs, keys, headers and free text made safe to show; what names an endpoint
without its secrets."""

from __future__ import annotations

import pytest

from autofill import redact
from autofill.redact import (mask_secret, remember, remember_url, safe_headers, safe_text, safe_url, url_identity,
                             url_secrets)

URL = "http://alice7:s3cr3tPW@127.0.0.1:5000/v1?api-key=QSECRET77&api-version=2024-06-01"
KEY = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789-TAIL"


@pytest.fixture(autouse=True)
def _nothing_remembered():
    redact.forget_remembered()
    yield
    redact.forget_remembered()


def test_mask_secret():
    assert mask_secret("") == "" and mask_secret(None) == "" and mask_secret("short-key") == "****"
    assert mask_secret(KEY) == "****TAIL"


def test_safe_url_drops_credentials_and_masks_query_values_but_the_version():
    assert safe_url(URL) == "http://***@127.0.0.1:5000/v1?api-key=***&api-version=2024-06-01"
    assert safe_url("https://user:pa55@proxy.example.com:8443/v1?key=abc#frag") == \
        "https://***@proxy.example.com:8443/v1?key=***"
    assert safe_url("https://example.com/v1?opaque") == "https://example.com/v1?***"
    for plain in ("http://127.0.0.1:8080/v1", "", "not a url", "127.0.0.1:8080"):
        assert safe_url(plain) == plain


def test_url_secrets_and_identity():
    assert {"alice7", "s3cr3tPW", "QSECRET77"} <= set(url_secrets(URL))
    assert "2024-06-01" not in url_secrets(URL)
    assert url_secrets("http://127.0.0.1/v1") == []
    ident = url_identity(URL)
    assert ident["base_url"] == safe_url(URL) and len(ident["url_sha256"]) == 64
    assert not any(s in repr(ident) for s in ("alice7", "s3cr3tPW", "QSECRET77"))
    # Two keys in one URL are two endpoints; a URL without secrets is named by itself alone.
    assert url_identity(URL.replace("QSECRET77", "OTHER"))["url_sha256"] != ident["url_sha256"]
    assert url_identity("http://127.0.0.1:5000/v1") == {"base_url": "http://127.0.0.1:5000/v1"}


def test_safe_headers():
    shown = safe_headers({"Authorization": "Bearer sk-x", "api-key": "k", "X-Api-Key": "k", "Cookie": "c",
                          "Content-Type": "application/json", "X-Stainless-Lang": "python"})
    assert shown == {"Authorization": "***", "api-key": "***", "X-Api-Key": "***", "Cookie": "***",
                     "Content-Type": "application/json", "X-Stainless-Lang": "python"}


def test_safe_text_masks_urls_headers_and_remembered_secrets():
    line = f'HTTP Request: POST {URL.replace("/v1?", "/v1/chat/completions?")} "HTTP/1.1 200 OK"'
    assert safe_text(line) == ('HTTP Request: POST http://***@127.0.0.1:5000/v1/chat/completions'
                               '?api-key=***&api-version=2024-06-01 "HTTP/1.1 200 OK"')
    assert safe_text("{'authorization': 'Bearer sk-abc', 'max_tokens': 1200, 'x-api-key': 'zz'}") == \
        "{'authorization': 'Bearer ***', 'max_tokens': 1200, 'x-api-key': '***'}"
    assert safe_text("Authorization: Basic YWxpY2U3OnMzY3IzdFBX") == "Authorization: Basic ***"
    # Secrets known to the process are masked wherever a library prints them; short ones are not searched for.
    remember_url(URL)
    remember(KEY, "pw")
    text = safe_text(f"user alice7 sent {KEY} with s3cr3tPW and QSECRET77 and pw")
    assert text == "user *** sent *** with *** and *** and pw"
    # Ordinary text is left alone.
    plain = "the token count was 5; key points: scope 1 is 1,120 kt; see https://example.com/report?page=2"
    assert safe_text(plain) == plain.replace("page=2", "page=***")
