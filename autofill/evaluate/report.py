"""The eval report: a text table for the terminal, and a Markdown file with a PNG chart of the
per-question metrics per configuration, the means with 95% intervals, paired differences with
Wilcoxon p-values, and tokens and cost per question per configuration. matplotlib is imported only
when a chart is drawn (Agg backend: no display needed)."""

from __future__ import annotations

import io
from pathlib import Path

from autofill.evaluate.results import (ANSWER_METRICS, JUDGE_METRICS, RETRIEVAL_METRICS, ConfigEval,
                                       EvalResult)
from autofill.evaluate.stats import Summary
from autofill.fileio import atomic_write_bytes

LABELS = {
    "hit_at_k": "hit@k", "recall_at_k": "recall@k", "precision_at_k": "precision@k", "mrr": "MRR",
    "ndcg_at_k": "nDCG@k", "passage_precision": "passage precision", "passage_recall": "passage recall",
    "passage_f1": "passage F1", "yesno_accuracy": "yes/no accuracy", "number_accuracy": "number accuracy",
    "value_accuracy": "typed value accuracy",
    "correctness": "correctness (judge)", "faithfulness": "faithfulness (judge)",
    "answer_relevancy": "answer relevancy (judge)", "context_relevancy": "context relevancy (judge)",
}
CHART_METRICS = ["recall_at_k", "mrr", "passage_f1"]


def _label(metric: str, k: int) -> str:
    return LABELS.get(metric, metric).replace("@k", f"@{k}")


def _metrics(result: EvalResult) -> list[str]:
    return RETRIEVAL_METRICS + ANSWER_METRICS + (JUDGE_METRICS if result.judged else [])


def fmt_summary(s: Summary) -> str:
    if s.mean is None:
        return "n/a"
    text = f"{s.mean:.3f}"
    if s.ci is not None:
        text += f" [{s.ci.low:.2f}, {s.ci.high:.2f}]"
    return f"{text} (n={s.n})"


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _p_relation(p: float | None) -> str:
    text = _fmt_p(p)
    return text if text.startswith("<") else f"= {text}"


def _usage_line(c: ConfigEval) -> tuple[str, str, str]:
    u = c.usage_json()
    tokens = "n/a" if u["tokens_per_question"] is None else f"{u['tokens_per_question']:.0f}"
    cost = "n/a" if u["cost_per_question_usd"] is None else f"${u['cost_per_question_usd']:.5f}"
    calls = "n/a" if c.llm_calls is None else str(c.llm_calls)
    return calls, tokens, cost


# --------------------------------------------------------------------------- terminal


def describe_text(result: EvalResult) -> str:
    k = result.k
    names = [c.name for c in result.configs]
    width = max(26, *(len(_label(m, k)) + 2 for m in _metrics(result)))
    col = max(28, *(len(n) + 2 for n in names))
    lines = []
    for c in result.configs:
        lines.append(f"{c.name}: {c.output} ({len(c.questions)} questions scored, "
                     f"{c.without_gold_pages} without gold pages, {len(c.unmatched_gold)} gold items unmatched)")
    lines.append("")
    lines.append("metric".ljust(width) + "".join(n.ljust(col) for n in names))
    for metric in _metrics(result):
        lines.append(_label(metric, k).ljust(width) + "".join(fmt_summary(c.summary(metric)).ljust(col)
                                                           for c in result.configs))
    lines.append("tokens / question".ljust(width) + "".join(_usage_line(c)[1].ljust(col) for c in result.configs))
    lines.append("cost / question".ljust(width) + "".join(_usage_line(c)[2].ljust(col) for c in result.configs))
    lines.append("(mean [95% interval: Wilson for rates, t for means] (questions))")
    for cmp in result.comparisons:
        lines.append("")
        lines.append(f"{cmp.b} vs {cmp.a} (paired Wilcoxon signed-rank over questions):")
        for metric, t in cmp.tests.items():
            if t.n == 0:
                continue
            lines.append(f"  {_label(metric, k).ljust(width)} diff {_fmt(t.mean_diff):>7}  "
                         f"better/worse/same {t.wins}/{t.losses}/{t.ties}  p {_p_relation(t.p_value)}"
                         + (f"  ({t.note})" if t.note and t.n and (t.wins or t.losses) else ""))
    notes = [f"{c.name}: {n}" for c in result.configs for n in c.notes]
    notes += [f"{c.name}: {c.yesno_answered} of {sum(1 for q in c.questions if q.answer_type == 'yesno')} yes/no "
              "answers state a verdict; the others count as wrong" for c in result.configs
              if any(q.answer_type == "yesno" and not q.verdict for q in c.questions)]
    notes += [f"{c.name}: gold items not found in the output: {', '.join(c.unmatched_gold)}"
              for c in result.configs if c.unmatched_gold]
    if notes:
        lines.append("")
        lines.extend(notes)
    lines.append("")
    for label, path in (("per-question table", result.table_csv), ("report", result.report), ("chart", result.chart)):
        if path is not None:
            lines.append(f"{label}: {path}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Markdown and chart




def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown(result: EvalResult, chart_name: str | None) -> str:
    k = result.k
    names = [c.name for c in result.configs]
    out = [f"# Evaluation against the gold key (k = {k})", ""]
    for c in result.configs:
        source = f" from `{c.config_file}`" if c.config_file else ""
        out.append(f"- **{c.name}**{source}: `{c.output}`; {len(c.questions)} questions scored, "
                   f"{c.without_gold_pages} without gold pages (left out of page metrics), "
                   f"{len(c.unmatched_gold)} gold items not found in the output")
    if result.judged:
        out.append(f"- judge model: `{result.judge_model}`")
    out += ["", "## Means", "", "Mean [95% interval] (questions scored). Wilson score intervals for 0/1 "
            "metrics (hit, yes/no, numbers), Student t intervals for the others.", ""]
    out.append("| metric | " + " | ".join(names) + " |")
    out.append("|---|" + "---|" * len(names))
    for metric in _metrics(result):
        out.append(f"| {_label(metric, k)} | " + " | ".join(fmt_summary(c.summary(metric)) for c in result.configs) + " |")
    out += ["", "## Tokens and cost", "", "| configuration | LLM calls | tokens / question | cost / question | judge tokens |",
            "|---|---|---|---|---|"]
    for c in result.configs:
        calls, tokens, cost = _usage_line(c)
        out.append(f"| {c.name} | {calls} | {tokens} | {cost} | {c.judge_prompt_tokens + c.judge_completion_tokens} |")
    for cmp in result.comparisons:
        out += ["", f"## {cmp.b} vs {cmp.a}", "",
                "Paired over the questions both scored; difference = mean of "
                f"({cmp.b} - {cmp.a}); two-sided Wilcoxon signed-rank test.", "",
                "| metric | n | " + f"{cmp.a} | {cmp.b} | difference | better / worse / same | p | note |",
                "|---|---|---|---|---|---|---|---|"]
        for metric, t in cmp.tests.items():
            out.append(f"| {_label(metric, k)} | {t.n} | {_fmt(t.mean_a)} | {_fmt(t.mean_b)} | {_fmt(t.mean_diff)} | "
                       f"{t.wins} / {t.losses} / {t.ties} | {_fmt_p(t.p_value)} | {_cell(t.note)} |")
    if chart_name:
        out += ["", "## Per question", "", f"![per-question metrics]({chart_name})"]
    out += ["", "| config | question | type | gold pages | hit | recall | MRR | nDCG | passage F1 | yes/no | number |"
            + (" correctness | faithfulness |" if result.judged else ""),
            "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if result.judged else "")]
    for c in result.configs:
        for q in c.questions:
            cells = [c.name, q.label, q.answer_type, str(q.gold_pages), _fmt(q.hit_at_k, 0), _fmt(q.recall_at_k, 2),
                     _fmt(q.mrr, 2), _fmt(q.ndcg_at_k, 2), _fmt(q.passage_f1, 2), _fmt(q.yesno_accuracy, 0),
                     _fmt(q.number_accuracy, 0)]
            if result.judged:
                cells += [_fmt(q.correctness, 2), _fmt(q.faithfulness, 2)]
            out.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    notes = [f"{c.name}: {n}" for c in result.configs for n in c.notes]
    notes += [f"{c.name}: {c.yesno_answered} of {sum(1 for q in c.questions if q.answer_type == 'yesno')} yes/no "
              "answers state a verdict; the others count as wrong" for c in result.configs
              if any(q.answer_type == "yesno" and not q.verdict for q in c.questions)]
    if notes:
        out += ["", "## Notes", ""] + [f"- {_cell(n)}" for n in notes]
    return "\n".join(out) + "\n"


def draw_chart(result: EvalResult, path: Path) -> Path | None:
    """Grouped bars, one panel per metric in CHART_METRICS, one bar per configuration and question."""
    questions = []
    for c in result.configs:
        for q in c.questions:
            if (q.sheet, q.row) not in [(s, r) for s, r, _ in questions]:
                questions.append((q.sheet, q.row, q.label))
    if not questions:
        return None
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    n_cfg = len(result.configs)
    fig, axes = plt.subplots(len(CHART_METRICS), 1, figsize=(min(16.0, max(6.0, 0.3 * len(questions) * n_cfg + 2)), 8),
                             sharex=True, squeeze=False)
    width = 0.8 / n_cfg
    xs = list(range(len(questions)))
    for ax, metric in zip(axes[:, 0], CHART_METRICS):
        for i, c in enumerate(result.configs):
            by_key = {(q.sheet, q.row): getattr(q, metric) for q in c.questions}
            values = [by_key.get((s, r)) for s, r, _ in questions]
            centres = [x - 0.4 + width * (i + 0.5) for x in xs]
            ax.bar(centres, [v or 0.0 for v in values], width, label=f"{c.name} (mean {_fmt(c.mean(metric))})")
            for x, v in zip(centres, values):
                if v is None:  # not applicable (no gold pages or evidence), unlike a real 0
                    ax.text(x, 0.02, "n/a", ha="center", va="bottom", fontsize=6, rotation=90, color="grey")
        ax.set_ylim(0, 1.3)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.set_ylabel(_label(metric, result.k))
        ax.legend(fontsize=7, loc="upper center", ncol=min(n_cfg, 4), frameon=False)
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xticks(xs)
    axes[-1, 0].set_xticklabels([label for _, _, label in questions], rotation=0 if len(questions) < 25 else 90)
    axes[-1, 0].set_xlabel("question")
    fig.suptitle(f"Per-question retrieval quality (k = {result.k})")
    fig.tight_layout()
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, dpi=110, format="png")
    finally:
        plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def write_report(result: EvalResult, eval_dir: Path, stem: str) -> tuple[Path | None, Path]:
    """Write `<stem>.png` and `<stem>.md` into `eval_dir`; returns (chart, report)."""
    eval_dir.mkdir(parents=True, exist_ok=True)
    chart = draw_chart(result, eval_dir / f"{stem}.png")
    report = eval_dir / f"{stem}.md"
    atomic_write_bytes(report, markdown(result, chart.name if chart else None).encode("utf-8"))
    return chart, report
