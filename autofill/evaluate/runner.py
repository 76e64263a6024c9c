"""`autofill eval`: run the questionnaire (once per configuration) or take an existing output, score
it against the gold key, compare configurations, and write the per-question table (CSV and JSON), a
Markdown report and a chart next to the output.

Files. An eval never writes the run's output name (`<questionnaire>_<company>_filled.xlsx`, the file a
reviewer works in): its runs write `<questionnaire>_<company>_eval.xlsx` and answer every row afresh.

Configurations. Each `--config FILE` is the current settings with that TOML file laid over them
(the file wins over the environment and the command line, since it is the thing being varied), and
its run writes into its own folder `<eval dir>/<config name>/`, so outputs and checkpoints never
clash. One judge (the base settings' judge model) scores every configuration alike.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import time
from pathlib import Path
from typing import Any, Callable

from autofill.answer.checkpoint import safe_name
from autofill.errors import InputError
from autofill.evaluate.forms import is_form_gold, load_form_gold, score_form_output
from autofill.evaluate.gold import load_gold
from autofill.evaluate.report import write_report
from autofill.evaluate.results import (ALL_METRICS, ConfigEval, EvalResult, compare, question_rows,
                                       score_output)
from autofill.extras import require
from autofill.fileio import atomic_write_bytes, ensure_writable_dir, missing
from autofill.providers.factory import make_chat, make_embedder
from autofill.reporting import Reporter, as_reporter
from autofill.settings import Settings, apply_overrides, read_toml, validate
from autofill.store.reading import open_for_reading



def config_settings(settings: Settings, config: Path) -> Settings:
    """`settings` with the TOML file `config` applied on top (a deep copy; `settings` is untouched)."""
    derived = copy.deepcopy(settings)
    apply_overrides(derived, read_toml(Path(config)), str(config))
    validate(derived)
    return derived


def config_names(configs: list[Path]) -> list[str]:
    """Folder-safe, distinct names from the files' stems ("dense", "dense-2", ...)."""
    names: list[str] = []
    for path in configs:
        base = "".join(c if c.isalnum() or c in "-_." else "-" for c in Path(path).stem) or "config"
        name, n = base, 2
        while name in names:
            name, n = f"{base}-{n}", n + 1
        names.append(name)
    return names


def _echo(reporter: Reporter) -> Callable[[str], None]:
    return lambda message: reporter.message(f"eval: {message}")


def eval_output(settings: Settings, company: str, questionnaire: Path, out_dir: Path | None) -> Path:
    """The filled workbook an eval run writes: its own name, never the run's `_filled` output."""
    folder = Path(out_dir) if out_dir else settings.reports_dir
    return folder / f"{Path(questionnaire).stem}_{safe_name(company)}_eval.xlsx"


def make_judge(settings: Settings, company: str, providers=None):
    """The judge when an LLM is configured, else None. Answer relevancy embeds with the store's own
    embedder (or the injected one)."""
    if not settings.llm_configured and not (providers is not None and getattr(providers, "judge", None)):
        return None
    from autofill.evaluate.judge import Judge

    chat = getattr(providers, "judge", None) if providers is not None else None
    chat = chat or make_chat(settings, settings.eval.judge_model or None)
    if chat is None:
        return None
    embedder = getattr(providers, "embedder", None) if providers is not None else None
    if embedder is None:
        try:

            embedder = make_embedder(settings, open_for_reading(settings, company).embedder_name)
        except InputError:
            embedder = None
    return Judge(settings, chat, embedder)


def run_eval(settings: Settings, company: str, questionnaire: Path | str, gold: Path | str,
             configs: list[Path] | None = None, from_output: Path | str | None = None, k: int = 6,
             out_dir: Path | str | None = None, reporter: Reporter | None = None, providers=None) -> EvalResult:
    """Score `from_output`, or run `questionnaire` for `company` (once per configuration in `configs`,
    or once with `settings`), against the gold key `gold`; see the module docstring."""
    require("eval", "autofill eval")  # before any run: the report's tests and chart need it
    if k < 1:
        raise InputError("-k must be at least 1")
    configs = [Path(c) for c in (configs or [])]
    if from_output is not None and configs:
        raise InputError("--from scores one existing output; --config runs the questionnaire, use one or the other")
    from autofill.forms.run import form_of

    form = form_of(Path(questionnaire))
    if form is not None or is_form_gold(gold):
        return _run_form_eval(settings, company, Path(questionnaire), form, Path(gold), configs, from_output, k,
                              out_dir, reporter, providers)
    key = load_gold(gold)
    rep = as_reporter(reporter)
    say = _echo(rep)
    judge = make_judge(settings, company, providers)
    if judge is not None:
        same = not settings.eval.judge_model or settings.eval.judge_model == getattr(judge.chat, "model", "")
        say(f"judge model {judge.model}" + (" (set eval.judge_model to judge with a different model)" if same else ""))

    evaluated: list[ConfigEval] = []
    if from_output is not None:
        output = Path(from_output)
        ensure_writable_dir(Path(out_dir) if out_dir else output.parent)
        evaluated.append(score_output(settings, key, output, k, "output", judge, say))
        eval_dir = Path(out_dir) if out_dir else output.parent
        stem = f"{output.stem}-eval"
    elif not configs:
        report = _run(settings, company, questionnaire, Path(out_dir) if out_dir else None, rep, providers, say)
        evaluated.append(_with_usage(score_output(settings, key, report.output, k, "default", judge, say), report))
        eval_dir, stem = report.output.parent, report.output.stem
    else:
        for path in configs:
            if not path.is_file():
                raise missing("configuration file", path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        eval_dir = Path(out_dir) if out_dir else settings.reports_dir / f"eval-{Path(questionnaire).stem}-{stamp}"
        stem = "eval"
        ensure_writable_dir(eval_dir)
        for path, name in zip(configs, config_names(configs)):
            derived = config_settings(settings, path)
            # The plan the run will use (HyDE asked for without a model says the retrieval it falls back to).
            from autofill.plan import resolve_plan

            plan = resolve_plan(derived, **({"chat": providers.chat} if providers is not None else {}))
            say(f"configuration {name}: retrieval {plan.mode.name}, reranker {plan.reranker_label}, "
                f"final_k {derived.retrieval.final_k}")
            report = _run(derived, company, questionnaire, eval_dir / name, rep, providers, say)
            scored = _with_usage(score_output(derived, key, report.output, k, name, judge, say), report)
            scored.config_file = str(path)
            evaluated.append(scored)

    result = EvalResult(k=k, configs=evaluated, judge_model=judge.model if judge is not None else "")
    result.comparisons = compare(evaluated, result.judged)
    write_outputs(result, Path(eval_dir), stem)
    return result


def _run_form_eval(settings: Settings, company: str, questionnaire: Path, form, gold: Path, configs: list[Path],
                   from_output, k: int, out_dir, reporter, providers) -> EvalResult:
    """A form (issue 45): its typed values and their evidence pages against a form's gold key
    (evaluate/forms.py), from `--from` or from a run of the form (forms/run.run_form, as `autofill run`)."""
    if form is None:
        raise InputError(f"{Path(gold).name} is a form's gold key (datapoints), but {questionnaire.name} is not a "
                         "form of named input cells; give the form it was written for")
    if configs:
        raise InputError("--config is not supported for a form yet; score each output with --from")
    items = load_form_gold(gold, form)
    say = _echo(as_reporter(reporter))
    if from_output is not None:
        output = Path(from_output)
        if not output.is_file():
            raise missing("output", output)
        eval_dir = Path(out_dir) if out_dir else output.parent
        ensure_writable_dir(eval_dir)
        scored = score_form_output(settings, form, items, output, k, "output")
        stem = f"{output.stem}-eval"
    else:
        from autofill.forms.run import run_form

        say(f"answering the form {questionnaire.name} for {company}")
        target = eval_output(settings, company, questionnaire, Path(out_dir) if out_dir else None)
        report = run_form(settings, company, questionnaire, output=target.with_suffix(questionnaire.suffix),
                          providers=providers, reporter=reporter, form=form)
        scored = score_form_output(settings, form, items, report.output, k, "default")
        usage = list(report.usage.values())
        scored.llm_calls = sum(u.calls for u in usage)
        scored.prompt_tokens = sum(u.prompt_tokens for u in usage)
        scored.completion_tokens = sum(u.completion_tokens for u in usage)
        scored.cost_usd = sum(u.cost_usd for u in usage) if all(u.cost_known for u in usage) else None
        scored.rows_run = report.datapoints
        eval_dir, stem = report.output.parent, report.output.stem
    result = EvalResult(k=k, configs=[scored])
    write_outputs(result, Path(eval_dir), stem)
    return result


def _run(settings: Settings, company: str, questionnaire, out_dir: Path | None, rep: Reporter, providers, say):
    from autofill.answer.pipeline import run_questionnaire

    say(f"answering {Path(questionnaire).name} for {company}")
    return run_questionnaire(settings, company, Path(questionnaire), reporter=rep, providers=providers,
                             output=eval_output(settings, company, Path(questionnaire), out_dir), keep_reviews=False)


def _with_usage(scored: ConfigEval, report) -> ConfigEval:
    """Token and cost figures from the run itself (more exact than reading them back from Run info)."""
    totals = report.totals()
    scored.llm_calls = totals.calls
    scored.prompt_tokens = totals.prompt_tokens
    scored.completion_tokens = totals.completion_tokens
    scored.cost_usd = totals.cost_usd if totals.cost_known else None  # no price for the model: n/a
    scored.rows_run = report.answered + report.drafted + report.unparsed + report.failed
    return scored


# --------------------------------------------------------------------------- files




def write_outputs(result: EvalResult, eval_dir: Path, stem: str) -> None:
    """Per-question CSV and JSON, the summary JSON inside the latter, the Markdown report and chart."""
    rows = question_rows(result)
    columns = ["config", "sheet", "row", "number", "question", "answer_type", "gold_pages", "gold_evidence",
               "retrieved", *ALL_METRICS, "number_recall", "verdict", "status", "answer", "judge_notes"]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: ("" if row.get(c) is None else row.get(c)) for c in columns})
    result.table_csv = eval_dir / f"{stem}.csv"
    result.table_json = eval_dir / f"{stem}.json"
    result.chart, result.report = write_report(result, eval_dir, stem)
    atomic_write_bytes(result.table_csv, buf.getvalue().encode("utf-8-sig"))  # BOM: Excel opens it as UTF-8
    summary: dict[str, Any] = result.to_json()
    atomic_write_bytes(result.table_json, json.dumps({"summary": summary, "questions": rows}, ensure_ascii=False,
                                                indent=1, default=str).encode("utf-8"))
