"""The audit dashboard (reviewers and managers) and CSV downloads of each of its tables."""

from __future__ import annotations

import csv

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.access import STAFF_ROLES, project_role_required
from annotation.models import Item, Project, Role
from audit.charts import Bar, count_chart, kappa_chart
from audit.judges.tables import judges_context
from audit.models import AuditSample
from audit.services.dashboard import (
    TABLES,
    Agreement,
    annotator_progress,
    band_class,
    csv_table,
    finite,
    items_by_state,
    kappa_text,
    strata_rows,
    stratum_field_from,
)
from audit.services.sampling import STRATUM_FIELDS
from audit.views.kinds import kinds_context

# What the agreement section compares, per project kind (annotation.labels.comparable).
COMPARED = {
    "pair": "which trajectory was preferred, in canonical terms (never the A/B letter shown)",
    "step": "the chosen candidate (see the step section for equivalents and checklists)",
    "trace": "the verdict: correct, corrected or discard (per-step checks below)",
    "pca": "the three scores P/C/A together (one dimension at a time below)",
    "query": "the chosen candidate query, or reject",
    "recording": "whether the recording passed its judge",
}
# Cells a spreadsheet would run as a formula; such text gets a leading apostrophe (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def percent(value) -> str:
    number = finite(value)
    return "–" if number is None else f"{number * 100:.1f}%"


def _stat_cell(stat: dict | None) -> dict:
    stat = stat or {}
    return {"text": kappa_text(stat), "band": stat.get("band") or "", "css": band_class(stat.get("value"))}


def _kappa_bar(row: dict) -> Bar:
    """Cohen's κ of a stratum; Fleiss' κ when pairs of raters share too few items for Cohen's."""
    stat, which = row.get("cohen_kappa") or {}, ""
    if finite(stat.get("value")) is None and finite((row.get("fleiss_kappa") or {}).get("value")) is not None:
        stat, which = row["fleiss_kappa"], " (Fleiss)"
    value = finite(stat.get("value"))
    if value is None:
        return Bar(row["stratum"], None, note=f"no κ yet ({row.get('n_units', 0)} items)")
    return Bar(
        row["stratum"],
        value,
        finite(stat.get("ci_low")),
        finite(stat.get("ci_high")),
        kappa_text(stat) + which,
    )


def agreement_context(project: Project, agreement: Agreement, stratum_field: str) -> dict:
    """What the `agreement` partial shows: the per-stratum table and its κ chart."""
    rows, bars = [], []
    for row in strata_rows(agreement.by_stratum(stratum_field)):
        rows.append(
            {
                "stratum": row["stratum"],
                "overall": row["overall"],
                "n_units": row.get("n_units", 0),
                "n_raters": row.get("n_raters", 0),
                "n_ratings": row.get("n_ratings", 0),
                "percent": percent(row.get("percent_agreement")),
                # Cohen's κ, Fleiss' κ, Krippendorff's α: the table's last three columns.
                "stats": [
                    _stat_cell(row.get("cohen_kappa")),
                    _stat_cell(row.get("fleiss_kappa")),
                    _stat_cell(row.get("krippendorff_alpha")),
                ],
            }
        )
        if not row["overall"]:
            bars.append(_kappa_bar(row))
    chart = kappa_chart(
        bars,
        title=f"κ per {stratum_field} with 95% CI (Cohen's; Fleiss' where Cohen's is undefined)",
        chart_id="kappa-chart",
    )
    return {
        "project": project,
        "stratum_field": stratum_field,
        "stratum_fields": list(STRATUM_FIELDS),
        "compared": COMPARED.get(project.kind, "the compared part of the label"),
        "strata": rows,
        "kappa_chart": chart,  # SafeString from audit.charts: every text escaped there
    }


def matrix_context(matrix: dict) -> dict:
    names = matrix.get("annotators") or []
    rows = []
    for i, name in enumerate(names):
        cells = []
        for j in range(len(names)):
            value = finite(matrix["kappa"][i][j]) if i != j else None
            count = matrix["counts"][i][j] if i != j else None
            cells.append(
                {
                    "self": i == j,
                    "text": "–" if value is None else f"{value:.2f}",
                    "count": count,
                    "css": band_class(value) if count else "band-none",
                }
            )
        rows.append({"name": name, "cells": cells})
    return {"names": names, "rows": rows}


def quality_rows(rows: list[dict]) -> list[dict]:
    return [
        {
            "username": r["username"],
            "n_done": r.get("n_done", 0),
            "agreement": percent(r.get("agreement_with_settled")),
            "median_seconds": "–"
            if finite(r.get("median_seconds")) is None
            else f"{r['median_seconds']:.0f} s",
            "skip_rate": percent(r.get("skip_rate")),
            "adjudication_share": percent(r.get("adjudication_share")),
        }
        for r in rows
    ]


@require_GET
@project_role_required(STAFF_ROLES)
def audit_dashboard(request: HttpRequest) -> HttpResponse:
    project = request.project
    stratum_field = stratum_field_from(request.GET.get("by"))
    agreement = Agreement(project)
    context = agreement_context(project, agreement, stratum_field)
    if request.htmx and not request.htmx.history_restore_request:
        # The stratum selector swaps only the agreement section.
        return render(request, "audit/dashboard.html#agreement", context)
    states = items_by_state(project=project)
    family = [
        {
            **row,
            "kappa_text": kappa_text(row.get("kappa")),
            "css": band_class((row.get("kappa") or {}).get("value")),
        }
        for row in agreement.family_kappa()
    ]
    context.update(
        {
            "role": request.project_role,
            "is_manager": request.project_role == Role.MANAGER,
            "progress": annotator_progress(project=project),
            "states": states,
            "states_chart": count_chart(
                [(s["label"], s["items"]) for s in states], title="Items by state", chart_id="states-chart"
            ),
            "family_kappa": family,
            "matrix": matrix_context(agreement.matrix()),
            "quality": quality_rows(agreement.quality()),
            "sample": AuditSample.objects.filter(project=project).select_related("created_by").first(),
            "audited": Item.objects.filter(project=project, audited=True).count(),
            "judges": judges_context(project=project),
            "kinds": kinds_context(agreement.kinds()),
        }
    )
    return render(request, "audit/dashboard.html", context)


def _csv_cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


@require_GET
@project_role_required(STAFF_ROLES)
def audit_table_csv(request: HttpRequest, table: str) -> HttpResponse:
    if table not in TABLES:
        raise Http404("No such table.")
    project = request.project
    stratum_field = stratum_field_from(request.GET.get("by"))
    header, rows = csv_table(project=project, table=table, stratum_field=stratum_field)
    name = f"{project.slug}-{table}" + (f"-{stratum_field}" if table == "strata" else "") + ".csv"
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows([_csv_cell(v) for v in row] for row in rows)
    return response
