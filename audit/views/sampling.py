"""The audit sampling page (managers): draw a stratified sample, see the samples drawn so far."""

from __future__ import annotations

import secrets

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.access import MANAGERS, project_role_required
from audit.models import AuditSample
from audit.services.sampling import (
    MAX_AUDIT_OVERLAP,
    MAX_SEED,
    MIN_AUDIT_OVERLAP,
    STRATUM_FIELDS,
    SamplingError,
    audit_sample_draw,
)

RECENT_SAMPLES = 20


class AuditSampleForm(forms.Form):
    stratum_field = forms.ChoiceField(
        label="Stratify by", choices=[(name, name.capitalize()) for name in STRATUM_FIELDS]
    )
    mode = forms.ChoiceField(
        label="Sample size",
        choices=[
            ("cap", "A cap per stratum (the whole stratum when smaller)"),
            ("rate", "A rate per stratum"),
        ],
        widget=forms.RadioSelect,
    )
    cap = forms.IntegerField(label="Cap (items per stratum)", min_value=1, required=False)
    rate = forms.FloatField(
        label="Rate (0–1)",
        min_value=0,
        max_value=1,
        required=False,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="e.g. 0.1 for 10%; rounded, at least one item per stratum.",
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=MAX_SEED,
        help_text="Recorded with the sample; the same seed draws the same sample.",
    )
    audit_overlap = forms.IntegerField(
        label="Audit overlap",
        min_value=MIN_AUDIT_OVERLAP,
        max_value=MAX_AUDIT_OVERLAP,
        help_text="Annotators per sampled item; every other item still open gets one.",
    )

    def clean(self) -> dict:
        data = super().clean()
        if data.get("mode") == "cap" and not data.get("cap"):
            self.add_error("cap", "Give the number of items per stratum.")
        if data.get("mode") == "rate" and not data.get("rate"):
            self.add_error("rate", "Give a rate above 0 and at most 1, e.g. 0.1 for 10%.")
        return data


def _initial(project) -> dict:
    """The project's last policy, with a fresh random seed (the past seeds are listed)."""
    policy = project.audit_policy or {}
    return {
        "stratum_field": policy.get("stratum_field", "family"),
        "mode": policy.get("mode", "cap"),
        "cap": policy.get("cap") or 80,
        "rate": policy.get("rate"),
        "seed": secrets.randbelow(1_000_000),
        "audit_overlap": policy.get("audit_overlap") or max(MIN_AUDIT_OVERLAP, project.overlap),
    }


def counts_text(counts: dict) -> str:
    return ", ".join(
        f"{name or '(none)'} {c['sampled']} of {c['population']}" for name, c in sorted(counts.items())
    )


@require_http_methods(["GET", "POST"])
@project_role_required(MANAGERS)
def audit_sample(request: HttpRequest) -> HttpResponse:
    project = request.project
    form = AuditSampleForm(request.POST if request.method == "POST" else None, initial=_initial(project))
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            sample = audit_sample_draw(
                project=project,
                actor=request.user,
                stratum_field=data["stratum_field"],
                mode=data["mode"],
                cap=data["cap"],
                rate=data["rate"],
                seed=data["seed"],
                audit_overlap=data["audit_overlap"],
            )
        except SamplingError as exc:
            form.add_error(None, str(exc))
        else:
            total = sum(c["sampled"] for c in sample.counts.values())
            messages.success(
                request,
                f"Audit sample drawn by {data['stratum_field']} with seed {sample.seed}: {total} items — "
                + counts_text(sample.counts)
                + ".",
            )
            return redirect(reverse("audit_dashboard", args=[project.slug]) + f"?by={data['stratum_field']}")
    samples = list(AuditSample.objects.filter(project=project).select_related("created_by")[:RECENT_SAMPLES])
    for sample in samples:
        sample.sampled_total = sum(c.get("sampled", 0) for c in sample.counts.values())
        sample.population_total = sum(c.get("population", 0) for c in sample.counts.values())
        sample.strata = sorted(sample.counts.items())  # JSONB does not keep key order
    context = {"project": project, "form": form, "samples": samples, "role": request.project_role}
    return render(request, "audit/sample.html", context, status=400 if form.errors else 200)
