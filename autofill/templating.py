"""Prompt templates: Jinja2 files named <name>.j2. A workspace `templates/` folder overrides the
package defaults file by file, so a team can edit prompts without touching the code. Undefined
variables are errors, so a renamed variable cannot silently blank part of a prompt."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from autofill.errors import InputError

PACKAGE_TEMPLATES = Path(__file__).parent / "default_templates"


@lru_cache(maxsize=8)
def _environment(workspace_templates: str) -> jinja2.Environment:
    loader = jinja2.ChoiceLoader([
        jinja2.FileSystemLoader(workspace_templates),
        jinja2.FileSystemLoader(str(PACKAGE_TEMPLATES)),
    ])
    return jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=False, trim_blocks=True, lstrip_blocks=True)


def template_source(templates_dir: Path, name: str) -> str:
    """The text of template `name` (without .j2) as `render` would load it, the workspace folder
    first; "" when neither folder has it."""
    env = _environment(str(templates_dir))
    try:
        return env.loader.get_source(env, f"{name}.j2")[0]
    except jinja2.TemplateNotFound:
        return ""


def render(templates_dir: Path, name: str, **variables) -> str:
    """Render template `name` (without .j2) with the workspace folder taking precedence."""
    env = _environment(str(templates_dir))
    try:
        return env.get_template(f"{name}.j2").render(**variables).strip()
    except jinja2.TemplateNotFound:
        raise InputError(f"prompt template {name}.j2 not found in {templates_dir} or the package defaults") from None
    except jinja2.UndefinedError as exc:
        raise InputError(f"prompt template {name}.j2: {exc.message}") from None
    except jinja2.TemplateSyntaxError as exc:
        raise InputError(f"prompt template {name}.j2 line {exc.lineno}: {exc.message}") from None
