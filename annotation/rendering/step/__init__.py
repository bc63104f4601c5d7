"""The step ranking page (Web-Shepherd): what it shows (view), its label form (form), the
versioned checklist and its marks (checklist), element boxes over the screenshot (elements)."""

from .checklist import SCOPE_WORDING, ChecklistEditForm, parse_edit_form, shown_rows
from .context import step_context
from .form import (
    MARKS,
    StepForm,
    initial_step_form,
    parse_step_form,
    posted_checklist_version,
    step_service_errors,
)
from .view import StepView, candidate_order, candidates_of, step_view

__all__ = [
    "MARKS",
    "SCOPE_WORDING",
    "ChecklistEditForm",
    "StepForm",
    "StepView",
    "candidate_order",
    "candidates_of",
    "initial_step_form",
    "parse_edit_form",
    "parse_step_form",
    "posted_checklist_version",
    "shown_rows",
    "step_context",
    "step_service_errors",
    "step_view",
]
