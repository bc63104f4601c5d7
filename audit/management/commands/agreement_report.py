"""`python manage.py agreement_report SLUG [--by family|bucket|difficulty|domain] [--json]`"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Project
from audit.agreement import LEVELS, agreement_report

BY = ("family", "bucket", "stratum", "difficulty", "domain")  # stratum: the stored name of bucket
MAX_RESAMPLES = 100_000


def _num(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _pct(value) -> str:
    return "–" if value is None else f"{value:.1%}"


def _coef(stat: dict | None) -> str:
    stat = stat or {}
    if stat.get("value") is None:
        return "–"
    text = _num(stat["value"])
    if stat.get("ci_low") is not None:
        text += f" [{_num(stat['ci_low'])}, {_num(stat['ci_high'])}]"
    return f"{text} {stat.get('band') or ''}".rstrip()


def _grid(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [line.format(*header), line.format(*("-" * w for w in widths))] + [line.format(*r) for r in rows]
    return "\n".join(text.rstrip() for text in lines)


class Command(BaseCommand):
    help = (
        "Agreement statistics of a project's pre-adjudication labels: % agreement, Cohen's, Fleiss' "
        "and (weighted) κ, Krippendorff's α with bootstrap CIs, overall and per stratum; the "
        "annotator × annotator κ matrix, per-annotator quality and the κ table per family."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="project slug")
        parser.add_argument(
            "--by", choices=BY, default="family", help="stratum to split by (default: family)"
        )
        parser.add_argument("--level", choices=LEVELS, default="nominal", help="level of measurement for α")
        parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (0: no CIs)")
        parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")

    def handle(self, *args, **options) -> None:
        project = Project.objects.filter(slug=options["slug"]).first()
        if project is None:
            known = ", ".join(Project.objects.order_by("slug").values_list("slug", flat=True)[:20])
            raise CommandError(
                f"No project with slug {options['slug']!r}. Known projects: {known or 'none'}."
            )
        if not 0 <= options["bootstrap"] <= MAX_RESAMPLES:
            raise CommandError(f"--bootstrap must be between 0 and {MAX_RESAMPLES}.")
        if options["seed"] < 0:
            raise CommandError("--seed must be 0 or more.")
        report = agreement_report(
            project=project,
            by=options["by"],
            level=options["level"],
            bootstrap=options["bootstrap"],
            seed=options["seed"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        self.stdout.write(self.render(report))

    def render(self, report: dict) -> str:
        overall = report["overall"]
        boot = overall["bootstrap"]
        parts = [
            f"Agreement in {report['project']} ({report['kind']}), pre-adjudication labels, "
            f"level {overall['level']}; 95% CIs from {boot['resamples']} bootstrap resamples "
            f"(seed {boot['seed']}).",
            "",
            f"Per {report['by']}:",
        ]
        header = [
            report["by"],
            "units",
            "raters",
            "ratings",
            "% agree",
            "Cohen κ",
            "Fleiss κ",
            "Krippendorff α",
        ]
        rows = []
        for name, stats in [("(all)", overall), *report["strata"].items()]:
            rows.append(
                [
                    name or "(none)",
                    stats["n_units"],
                    stats["n_raters"],
                    stats["n_ratings"],
                    _pct(stats["percent_agreement"]),
                    _coef(stats["cohen_kappa"]),
                    _coef(stats["fleiss_kappa"]),
                    _coef(stats["krippendorff_alpha"]),
                ]
            )
        parts += [_grid(header, rows), ""]
        if overall["cohen_kappa"].get("method"):
            parts += [f"Cohen's κ: {overall['cohen_kappa']['method']}.", ""]

        parts.append("κ per family (protocols.md, section A):")
        family = report["family_kappa"]
        parts += [
            _grid(
                ["family", "audited", "κ", "sample"],
                [[r["family"] or "(none)", r["audited"], _coef(r["kappa"]), r["sample"]] for r in family],
            )
            if family
            else "  no family has items with two labels yet",
            "",
        ]

        matrix = report["annotator_matrix"]
        names = matrix["annotators"]
        parts.append("Annotator × annotator κ (shared items):")
        cells = [
            [name]
            + [
                "·" if i == j else f"{_num(matrix['kappa'][i][j], 2)} ({matrix['counts'][i][j]})"
                for j in range(len(names))
            ]
            for i, name in enumerate(names)
        ]
        parts += [_grid(["", *names], cells) if names else "  no labels yet", ""]

        parts.append("Per annotator:")
        quality = report["annotator_quality"]
        parts.append(
            _grid(
                ["annotator", "done", "agrees w/ settled", "median s", "skip rate", "to adjudication"],
                [
                    [
                        q["username"],
                        q["n_done"],
                        f"{_pct(q['agreement_with_settled'])} of {q['n_settled']}",
                        _num(q["median_seconds"], 0),
                        _pct(q["skip_rate"]),
                        _pct(q["adjudication_share"]),
                    ]
                    for q in quality
                ],
            )
            if quality
            else "  nobody has worked on this project yet"
        )
        parts += self.render_kinds(report.get("kinds") or {})
        return "\n".join(parts) + "\n"

    def render_kinds(self, kinds: dict) -> list[str]:
        """The P/C/A, step, trace and query sections (audit.kinds), for kinds the project has."""
        parts: list[str] = []
        head = ["compared", "units", "raters", "% agree", "Cohen κ", "Fleiss κ", "Krippendorff α"]

        def agreement(rows: list[tuple[str, dict]]) -> str:
            return _grid(
                head,
                [
                    [
                        name,
                        s["n_units"],
                        s["n_raters"],
                        _pct(s["percent_agreement"]),
                        _coef(s["cohen_kappa"]),
                        _coef(s["fleiss_kappa"]),
                        _coef(s["krippendorff_alpha"]),
                    ]
                    for name, s in rows
                ],
            )

        if pca := kinds.get("pca"):
            dims = ("perception", "cognition", "action")
            parts += [
                "",
                "P/C/A agreement per dimension:",
                agreement([(d, pca["agreement"][d]) for d in dims]),
            ]
            counts = pca["categories"]
            names = list(counts["overall"])
            rows = [["(all)", counts["n"], *counts["overall"].values()]]
            rows += [[d["name"], d["n"], *(d[c] for c in names)] for d in counts["domains"]]
            parts += [
                "",
                "P/C/A error categories of verified items (perception: P=0; cognition: P=1, C=0; "
                "action: P=1, C=1, A=0; none: all 1):",
                _grid(["domain", "items", *names], rows),
            ]
            sources = [("humans", pca["domains"], pca["domain_average"])]
            sources += [(j["name"], j["domains"], j["domain_average"]) for j in pca["judges"]]
            rows = []
            for name, domains, avg in sources:
                rows += [[name, d["name"], d["n"], *(_pct(d[k]) for k in dims)] for d in domains]
                if domains:
                    rows.append(
                        [name, "Avg (mean over domains)", avg["n_domains"], *(_pct(avg[k]) for k in dims)]
                    )
            parts += ["", "P/C/A domain averages:", _grid(["source", "domain", "items", "P", "C", "A"], rows)]
            if pca["judges"]:
                rows = [
                    [j["name"], j["n"], j["n_failed"], *(_num(j["pearson"][d]) for d in dims)]
                    for j in pca["judges"]
                ]
                parts += ["", "P/C/A judges, Pearson r vs settled labels:"]
                parts.append(_grid(["source", "items", "failed", "r P", "r C", "r A"], rows))
        if step := kinds.get("step"):
            lenient = step["best_lenient"]
            parts += [
                "",
                "Step agreement:",
                agreement(
                    [("best candidate", step["best"]), ("checklist marks (ordinal)", step["checklist"])]
                ),
                f"Lenient best candidate (equivalent counts): {_pct(lenient['percent_agreement'])} of "
                f"label pairs, κ {_num(lenient['kappa'])}.",
            ]
            if step["machines"]:
                rows = [
                    [
                        m["name"],
                        m["n"],
                        m["n_failed"],
                        _num(m["mrr"]),
                        _pct(m["step_accuracy"]),
                        f"{_pct(m['trajectory_accuracy'])} of {m['n_trajectories']}",
                    ]
                    for m in step["machines"]
                ]
                parts += ["", "Step suggestions vs settled labels:"]
                parts.append(
                    _grid(["source", "steps", "failed", "MRR", "step acc.", "trajectory acc."], rows)
                )
        if trace := kinds.get("trace"):
            rows = [("verdict", trace["verdict"])] + [(f"check {c}", s) for c, s in trace["checks"].items()]
            parts += ["", "Trace agreement (checks: one unit per item × step):", agreement(rows)]
        if query := kinds.get("query"):
            decisions = ", ".join(f"{k} {v}" for k, v in query["decisions"].items())
            parts += ["", "Query agreement:", agreement([("chosen query or reject", query["chosen"])])]
            parts.append(f"Decisions: {decisions}.")
        return parts
