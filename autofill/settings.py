"""One settings object for the whole tool, nested by stage.

Precedence, lowest first: the defaults below, `autofill.toml` in the workspace, each `--config FILE`
given on the command line, environment variables, then explicit command-line options. The CLI builds
it once and passes it down; stage functions never read the environment themselves.

Environment variables: the providers' own (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `COHERE_API_KEY`,
`COHERE_BASE_URL`, `AUTOFILL_CHROMA_URL`) and, for any field, `AUTOFILL_<SECTION>__<FIELD>`
(for example `AUTOFILL_LLM__MODEL=gpt-4.1-mini`, `AUTOFILL_RETRIEVAL__FINAL_K=8`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from autofill import choices, redact
from autofill import value_types as vt
from autofill.errors import InputError
from autofill.settings_files import RETIRED, read_toml, retired_line, unknown_setting
from autofill.settings_sections import (
    Secret, IngestSettings, EmbeddingSettings, StoreSettings, LLMSettings, RetrievalSettings, WorkbookSettings, CostSettings, PortfolioSettings, EvalSettings, LibrarySettings, RunSettings, VerifySettings,
)




SECTIONS = {
    "ingest": IngestSettings,
    "embedding": EmbeddingSettings,
    "store": StoreSettings,
    "llm": LLMSettings,
    "retrieval": RetrievalSettings,
    "workbook": WorkbookSettings,
    "cost": CostSettings,
    "portfolio": PortfolioSettings,
    "eval": EvalSettings,
    "run": RunSettings,
    "verify": VerifySettings,
    "library": LibrarySettings,
}


@dataclass
class Settings:
    workspace: Path = field(default_factory=Path.cwd)
    ingest: IngestSettings = field(default_factory=IngestSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    store: StoreSettings = field(default_factory=StoreSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    workbook: WorkbookSettings = field(default_factory=WorkbookSettings)
    cost: CostSettings = field(default_factory=CostSettings)
    portfolio: PortfolioSettings = field(default_factory=PortfolioSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    run: RunSettings = field(default_factory=RunSettings)
    verify: VerifySettings = field(default_factory=VerifySettings)
    library: LibrarySettings = field(default_factory=LibrarySettings)
    # Where each setting that is not a default came from: "llm.model" -> (kind, where), kind one of
    # "autofill.toml", "--config", "environment", "flag" (recorded by load_settings; `autofill config`).
    origins: dict[str, tuple[str, str]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def vectordb_dir(self) -> Path:
        return self.workspace / "vectordb"

    @property
    def reports_dir(self) -> Path:
        return self.workspace / "reports_out"

    @property
    def templates_dir(self) -> Path:
        return self.workspace / "templates"

    @property
    def cache_dir(self) -> Path:
        return self.workspace / "vectordb" / ".llm-cache"

    @property
    def llm_provider(self) -> str:
        """The chat provider actually in use: "openai", "cohere" or "none"."""
        p = self.llm.provider.lower()
        if p != choices.AUTO:
            return p
        # auto: the first provider of the table whose key (or, where none is needed, URL) is set.
        return next((name for name, entry in choices.PROVIDERS.items() if entry.configured(self.llm)), choices.NONE)

    @property
    def llm_configured(self) -> bool:
        return self.llm_provider != choices.NONE

    @property
    def retrieval_mode(self) -> str:
        if self.retrieval.mode != choices.AUTO:
            return self.retrieval.mode
        return choices.AUTO_MODE[self.llm_configured]

    @property
    def reranker(self) -> str:
        if self.retrieval.reranker != choices.AUTO:
            return self.retrieval.reranker
        return choices.AUTO_RERANKER[self.llm_configured]

    def public_dict(self) -> dict[str, Any]:
        """Settings as plain data with every secret blanked, for Run info sheets and logs."""
        out: dict[str, Any] = {"workspace": str(self.workspace)}
        for name in SECTIONS:
            section = dataclasses.asdict(getattr(self, name))
            for key, value in section.items():
                if "key" in key and value:
                    section[key] = "***"
            out[name] = section
        return out


# Tables whose values have a type of their own ("section.key" -> value_types kind of each value).
TABLE_VALUES = {"cost.prices": vt.PRICE}


def _coerce(value: Any, current: Any, where: str, key: str = "", strict: bool = True) -> Any:
    """Turn a TOML or environment value into the type of the field's default. Text (the environment's
    values, or a quoted value in a file) is parsed; any other value must already be of the field's type
    (value_types.py), else InputError naming `where` and `key` ("autofill.toml: retrieval.final_k must
    be a whole number, not true"). `strict=False` (the command line's typed options) converts instead."""
    if isinstance(current, Secret):
        return Secret(vt.check(value, vt.TEXT, where, key) if strict else str(value))
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        if not isinstance(value, str) and strict:
            vt.check(value, vt.BOOLEAN, where, key)
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise InputError(f"{where}: {key} must be true or false, not {vt.shown(value)}")
    if isinstance(current, int) and not isinstance(current, bool):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, str) and strict:
            return vt.check(value, vt.INTEGER, where, key)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise InputError(f"{where}: {key} must be a whole number, not {vt.shown(value)}") from None
    if isinstance(current, float):
        if not isinstance(value, str) and strict:
            return float(vt.check(value, vt.NUMBER, where, key))
        try:
            return float(value)
        except (TypeError, ValueError):
            raise InputError(f"{where}: {key} must be a number, not {vt.shown(value)}") from None
    if isinstance(current, dict):
        vt.check(value, vt.TABLE, where, key)
        kind = TABLE_VALUES.get(key)
        for name, item in dict(value).items():
            if kind is not None:
                vt.check(item, kind, where, f"{key}.{name}")
        return {**current, **dict(value)}
    if strict:
        vt.check(value, vt.TEXT, where, key)
    return str(value)


def apply_overrides(settings: Settings, data: Mapping[str, Any], origin: str, kind: str = "",
                    labels: Mapping[str, str] | None = None, strict: bool = True) -> None:
    """Apply a nested mapping ({"llm": {"model": ...}}) onto settings, rejecting unknown keys. With
    `kind`, each value applied is recorded in settings.origins as (kind, labels["section.key"] or origin)."""
    for section_name, values in data.items():
        if section_name == "workspace":
            settings.workspace = Path(vt.check(values, vt.TEXT, origin, "workspace") if strict else str(values))
            continue
        if section_name not in SECTIONS:
            raise InputError(f"{origin}: unknown settings section [{section_name}]")
        if not isinstance(values, Mapping):
            raise InputError(f"{origin}: [{section_name}] must be a table, not {vt.shown(values)}")
        section = getattr(settings, section_name)
        names = {f.name for f in dataclasses.fields(section)}
        for key, value in values.items():
            name = f"{section_name}.{key}"
            # An environment variable is named as the user set it (AUTOFILL_RETRIEVAL__FINAL_K), not as a key.
            said = (labels or {}).get(name, name) if kind == "environment" else name
            if key not in names and name in RETIRED:  # named as set: the variable, the option or the key
                shown_as = (labels or {}).get(name, name) if kind in ("environment", "flag") else name
                _retired(origin, kind, shown_as, name, value, strict)
                continue
            if key not in names:
                raise unknown_setting(origin, name, [f"{section_name}.{n}" for n in sorted(names)])
            setattr(section, key, _coerce(value, getattr(section, key), origin, said, strict))
            if kind:
                leaves = [f"{name}.{k}" for k in value] if isinstance(value, Mapping) else [name]
                settings.origins.update((leaf, (kind, (labels or {}).get(name, origin))) for leaf in leaves)


def _retired(origin: str, kind: str, said: str, name: str, value: Any, strict: bool) -> None:
    """A retired setting (settings_files.RETIRED): a warning when it sets the value whose behaviour stands,
    else InputError naming where it was set and what to do."""
    kept = RETIRED[name].kept
    try:
        harmless = _coerce(value, kept, origin, said, strict) == kept
    except InputError:
        harmless = False
    logging.getLogger(__name__).warning(retired_line(origin, kind, said, name, value, harmless))


def env_overrides(environ: Mapping[str, str], names: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Settings from the environment; `names` (when given) gets "section.key" -> the variable used."""
    out: dict[str, dict[str, Any]] = {}
    names = {} if names is None else names

    def put(section: str, key: str, var: str) -> None:
        out.setdefault(section, {})[key] = environ[var]
        names[f"{section}.{key}"] = var

    for provider in choices.PROVIDERS.values():  # the providers' own variables (OPENAI_API_KEY, ...)
        for env, setting in ((provider.key_env, provider.key_field), (provider.url_env, provider.url_field)):
            if env and setting and environ.get(env):
                put("llm", setting, env)
    if environ.get("AUTOFILL_CHROMA_URL"):
        put("store", "chroma_url", "AUTOFILL_CHROMA_URL")
    for name in environ:
        if not name.startswith("AUTOFILL_") or "__" not in name:
            continue
        section, _, key = name[len("AUTOFILL_"):].partition("__")
        section, key = section.lower(), key.lower()
        if section == "cost":
            continue  # price tables are structured; set them in a TOML file
        put(section, key, name)
    return out


# What makes a folder a workspace when autofill looks for one from the current folder upwards.
WORKSPACE_MARKERS = ("autofill.toml", "vectordb")


def discover_workspace(explicit: Path | str | None = None, environ: Mapping[str, str] | None = None,
                       start: Path | str | None = None) -> Path:
    """The workspace folder, found like git finds its repository: `explicit` (--workspace) if given,
    else $AUTOFILL_WORKSPACE, else the first folder from `start` (the current folder) upwards that holds
    `autofill.toml` or `vectordb/`, else `start` itself (a new workspace is made where you are).
    An explicit or environment folder that does not exist is an error naming it; one that is not yet a
    workspace is fine (the first ingest makes it one)."""
    environ = os.environ if environ is None else environ
    for given, origin in ((explicit, "--workspace"), (environ.get("AUTOFILL_WORKSPACE"), "AUTOFILL_WORKSPACE")):
        if given:
            folder = Path(given).expanduser().resolve()
            if folder.exists() and not folder.is_dir():
                raise InputError(f"workspace {folder} ({origin}) is a file, not a folder")
            return folder
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "autofill.toml").is_file() or (folder / "vectordb").is_dir():
            return folder
    return here


def load_settings(
    workspace: Path | str | None = None,
    config_files: list[Path] | tuple[Path, ...] = (),
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    environ: Mapping[str, str] | None = None,
    start: Path | str | None = None,
    flags: Mapping[str, str] | None = None,
) -> Settings:
    """Build the settings: defaults < workspace autofill.toml < config files < env < overrides. The
    workspace is `workspace` if given, else found by `discover_workspace` (env, then upwards from `start`).
    Where each value came from is kept in settings.origins (`flags`: "section.key" -> the option's name)."""
    settings = Settings(workspace=discover_workspace(workspace, environ, start))
    workspace_toml = settings.workspace / "autofill.toml"
    if workspace_toml.is_file():
        apply_overrides(settings, read_toml(workspace_toml), str(workspace_toml), kind="autofill.toml")
    for path in config_files:
        apply_overrides(settings, read_toml(Path(path)), str(path), kind="--config")
    env_names: dict[str, str] = {}
    apply_overrides(settings, env_overrides(os.environ if environ is None else environ, env_names), "environment",
                    kind="environment", labels=env_names)
    if overrides:
        cleaned = {s: {k: v for k, v in vals.items() if v is not None} for s, vals in overrides.items()}
        apply_overrides(settings, cleaned, "command line", kind="flag", labels=flags, strict=False)
    validate(settings)
    return settings


def validate(settings: Settings) -> None:
    r = settings.retrieval
    if r.mode not in choices.names(choices.RETRIEVAL_MODES):
        raise InputError(f"unknown retrieval mode {r.mode!r} ({', '.join(choices.RETRIEVAL_MODES)})")
    if r.reranker not in choices.names(choices.RERANKERS):
        raise InputError(f"unknown reranker {r.reranker!r} ({', '.join(choices.RERANKERS)})")
    if r.second_stage in choices.RETIRED_SECOND_STAGES:
        kind, where = settings.origins.get("retrieval.second_stage", ("", ""))
        raise InputError(f"retrieval.second_stage {r.second_stage!r}" + (f" ({where or kind})" if kind else "")
                         + f": {choices.RETIRED_SECOND_STAGES[r.second_stage]}; set it to one of "
                         f"{choices.one_of(choices.SECOND_STAGES, auto=False)} (none: the default)")
    if r.second_stage not in choices.SECOND_STAGES:
        raise InputError(f"unknown retrieval.second_stage {r.second_stage!r} ({choices.one_of(choices.SECOND_STAGES, auto=False)})")
    if r.second_stage_depth < 0:
        raise InputError(f"retrieval.second_stage_depth must be 0 (all candidates) or more, not {r.second_stage_depth}")
    if r.query_parts not in ("row", "question", "both"):
        raise InputError(f"unknown retrieval.query_parts {r.query_parts!r} (row, question, both)")
    if r.keyword_weight < 0 or r.rrf_k < 0:
        raise InputError("retrieval.keyword_weight and retrieval.rrf_k must not be negative")
    if r.final_k < 1 or r.candidates < r.final_k:
        raise InputError("retrieval needs 1 <= final_k <= candidates")
    if settings.embedding.provider not in ("", *choices.embed_providers()):
        raise InputError(f"unknown embedding provider {settings.embedding.provider!r} "
                         f"({', '.join(choices.embed_providers())})")
    if settings.embedding.runtime not in ("onnx", "torch"):
        raise InputError(f"unknown embedding runtime {settings.embedding.runtime!r} (onnx, torch)")
    if settings.llm.provider not in (choices.AUTO, *choices.chat_providers(), choices.NONE):
        raise InputError(f"unknown LLM provider {settings.llm.provider!r}")
    if settings.ingest.chunk_chars < 200:
        raise InputError("ingest.chunk_chars must be at least 200")
    if settings.run.reporting_year and not 1900 <= settings.run.reporting_year <= 2100:
        raise InputError(f"run.reporting_year must be a year such as 2023, got {settings.run.reporting_year}")
    lib = settings.library
    if lib.reuse not in ("off", "approved"):
        raise InputError(f"unknown library.reuse {lib.reuse!r} (off, approved)")
    if not (0.0 <= lib.threshold <= 1.0 and 0.0 <= lib.reuse_threshold <= 1.0):
        raise InputError("library.threshold and library.reuse_threshold must be between 0 and 1")
    if settings.llm.concurrency < 1:
        raise InputError("llm.concurrency must be at least 1")
    if settings.workbook.history_versions < 0:
        raise InputError("workbook.history_versions must be 0 (no history) or more")
    if settings.portfolio.companies_at_once < 1:
        raise InputError("portfolio.companies_at_once must be at least 1")
    if settings.portfolio.engine not in ("local", "ray"):
        raise InputError(f"unknown portfolio.engine {settings.portfolio.engine!r} (local, ray)")
    if settings.portfolio.chars_per_token <= 0:
        raise InputError("portfolio.chars_per_token must be above 0")
    # A malformed price used to pass here and then fail every row after its model calls were made.
    for model, price in (settings.cost.prices or {}).items():
        if (not isinstance(price, (list, tuple)) or len(price) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in price)):
            raise InputError(f"cost.prices.{model!r} must be [input, output] USD per million tokens, got {price!r}")


def remember_secrets(settings: Settings) -> None:
    """Every key and every URL's user, password and query values of these settings made known to
    autofill/redact.py, so that a log line or an error message that happens to carry one (an SDK's
    debug line, an exception naming its URL) prints it masked."""
    for section in SECTIONS:
        for f in dataclasses.fields(getattr(settings, section)):
            value = getattr(getattr(settings, section), f.name)
            if isinstance(value, Secret) or f.name.endswith("_key"):
                redact.remember(value)
            elif isinstance(value, str) and f.name.endswith("url"):
                redact.remember_url(value)
