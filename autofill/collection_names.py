"""A company's collection name: the stable key its store, its turn and write locks and the files derived
from its reports go by (bottom layer, pure: the Chroma plumbing, companylock.py and store/derived.py use it;
`store.chroma_client.collection_name` is the same function)."""

from __future__ import annotations

import hashlib
import re

from autofill.errors import InputError


def collection_name(company: str) -> str:
    """A valid, stable Chroma collection name for a company ([a-zA-Z0-9._-], 3-512 chars, alphanumeric at
    both ends). A readable slug plus a hash of the exact name, so "BHP" and "bhp" never share a store."""
    company = company.strip()
    if not company:
        raise InputError("company name is empty")
    slug = re.sub(r"[^a-z0-9]+", "-", company.lower()).strip("-")[:48].strip("-") or "company"
    digest = hashlib.sha256(company.encode("utf-8")).hexdigest()[:10]
    return f"af-{slug}-{digest}"
