"""Forms of the judge pages: a judge configuration and a run's filters."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.models import ItemState, Project
from review.exports.selectors import project_strata
from workers.judging.protocols import DEFAULT_TEMPLATES
from workers.models import JudgeConfig, JudgeProtocol


class JudgeConfigForm(forms.ModelForm):
    base_url = forms.URLField(
        max_length=500,
        assume_scheme="https",
        help_text="An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1.",
    )

    class Meta:
        model = JudgeConfig
        fields = [
            "name",
            "protocol",
            "base_url",
            "model",
            "api_key_env",
            "temperature",
            "samples",
            "max_concurrency",
            "requests_per_minute",
            "tokens_per_minute",
            "timeout_seconds",
            "price_in_per_mtok",
            "price_out_per_mtok",
            "prompt_template",
        ]
        labels = {
            "api_key_env": "API key environment variable",
            "price_in_per_mtok": "Price in / M tokens (USD)",
        }
        help_texts = {
            "api_key_env": "The NAME of the variable the workers read the key from (never the key). "
            "Blank: the endpoint needs no key.",
            "prompt_template": "$family, $tools, $context, $candidate_a, $candidate_b … are filled from "
            "the item. Left blank: the protocol's default template.",
        }
        widgets = {"prompt_template": forms.Textarea(attrs={"rows": 14, "class": "mono"})}

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["prompt_template"].required = False
        self.fields["api_key_env"].required = False
        if not self.instance.pk and not self.is_bound:
            self.initial.setdefault("protocol", JudgeProtocol.PAIRWISE)
            self.initial.setdefault("prompt_template", DEFAULT_TEMPLATES[JudgeProtocol.PAIRWISE])

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not (data.get("prompt_template") or "").strip() and data.get("protocol") in DEFAULT_TEMPLATES:
            data["prompt_template"] = DEFAULT_TEMPLATES[data["protocol"]]
        return data

    def validate_unique(self) -> None:
        """The service checks the name per project, with its own message."""


class JudgeRunForm(forms.Form):
    config = forms.ChoiceField(label="Judge")
    states = forms.MultipleChoiceField(
        choices=ItemState.choices, required=False, widget=forms.CheckboxSelectMultiple, help_text="None: all."
    )
    strata = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, help_text="None: all."
    )
    item_ids = forms.CharField(
        required=False, label="Item ids", help_text="Comma-separated; blank: every item matching the filters."
    )
    force = forms.BooleanField(
        required=False, label="Judge again items already judged with this prompt version"
    )

    def __init__(self, *args: Any, project: Project, configs: list[JudgeConfig], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["config"].choices = [
            (c.pk, f"{c.name} · {c.model} · prompt v{c.prompt_version}") for c in configs
        ]
        self.fields["strata"].choices = [(s, s) for s in project_strata(project=project)]

    def clean_item_ids(self) -> list[int]:
        raw = self.cleaned_data.get("item_ids") or ""
        try:
            return [int(part) for part in raw.replace(" ", ",").split(",") if part.strip()]
        except ValueError:
            raise forms.ValidationError("Item ids are whole numbers separated by commas.") from None

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {k: data[k] for k in ("states", "strata", "item_ids") if data.get(k)}
