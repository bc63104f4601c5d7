"""The step ranking page's view data (Web-Shepherd): task, filmstrip of earlier steps, the current
observation, the checklist and the candidate actions in a per-annotator order; and the form.

Candidate order is recomputed here on every request from (item, annotator), never read from the
client. Gold (item.gold) and each candidate's source are never put into the annotator's view."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field

from django.http import QueryDict

from annotation.models import Item

from .messages import Links, MediaView
from .text import pretty_json

MARKS = (("yes", "Yes"), ("in_progress", "In progress"), ("no", "No"))


def candidate_order(*, item: Item, annotator_id: int | None) -> list[str]:
    """Candidate ids in display order: sha256 per (item, annotator, id); stored order for staff."""
    ids = [str(c.get("id")) for c in _candidates(item)]
    if annotator_id is None:
        return ids
    return sorted(ids, key=lambda cid: hashlib.sha256(f"{item.pk}:{annotator_id}:{cid}".encode()).hexdigest())


def _candidates(item: Item) -> list[dict]:
    payload = item.payload if isinstance(item.payload, dict) else {}
    return [c for c in payload.get("candidates") or () if isinstance(c, dict)]


@dataclass(slots=True)
class Frame:
    n: int
    text: str
    url: str
    shot: MediaView | None


@dataclass(slots=True)
class StepView:
    task: dict
    frames: list[Frame]
    obs_url: str
    obs_shots: list[MediaView]
    axtree: str
    checklist: list[dict]
    candidates: list[dict]  # {"n", "id", "thought", "name", "args"} in display order
    gold: str  # staff only


def _shot(obs: dict, links: Links, key: str = "screenshot") -> MediaView | None:
    path = obs.get(key)
    return MediaView(path=str(path), url=links.media(path), video=False, label=key) if path else None


def _call_text(call: dict) -> str:
    fn = call.get("function") if isinstance(call.get("function"), dict) else call
    return f"{fn.get('name', '')}({pretty_json(fn.get('arguments'))})"


def step_view(*, item: Item, order: list[str], links: Links, staff: bool) -> StepView:
    messages = item.trajectory_first.messages if item.trajectory_first is not None else []
    messages = [m for m in messages or () if isinstance(m, dict)]
    observed = [m for m in messages if isinstance(m.get("observation"), dict)]
    # One frame per earlier action, with the screenshot of the page it led to.
    frames: list[Frame] = []
    for m in messages:
        if m.get("role") == "assistant":
            calls = [_call_text(c) for c in m.get("tool_calls") or () if isinstance(c, dict)]
            text = " ".join(calls) or str(m.get("content") or "")
            frames.append(Frame(len(frames) + 1, text, "", None))
        elif isinstance(m.get("observation"), dict) and frames and frames[-1].shot is None:
            obs = m["observation"]
            frames[-1].url, frames[-1].shot = str(obs.get("url") or ""), _shot(obs, links)
    last = observed[-1]["observation"] if observed else {}
    by_id = {str(c.get("id")): c for c in _candidates(item)}
    candidates = []
    for n, cid in enumerate(order, start=1):
        c = by_id.get(cid, {})
        action = c.get("action") if isinstance(c.get("action"), dict) else {}
        candidates.append(
            {
                "n": n,
                "id": cid,
                "thought": str(c.get("thought") or ""),
                "name": str(action.get("name") or ""),
                "args": pretty_json(action.get("arguments", {})),
            }
        )
    payload = item.payload if isinstance(item.payload, dict) else {}
    return StepView(
        task={
            k: str(getattr(item.task, k, "") or "")
            for k in ("instruction", "website", "start_url", "difficulty")
        },
        frames=frames,
        obs_url=str(last.get("url") or ""),
        obs_shots=[s for s in (_shot(last, links), _shot(last, links, "screenshot_after")) if s],
        axtree=str(last.get("axtree") or ""),
        checklist=[c for c in payload.get("checklist") or () if isinstance(c, dict)],
        candidates=candidates,
        gold=str((item.gold or {}).get("chosen", "")) if staff else "",
    )


@dataclass
class StepForm:
    chosen: str = ""
    equivalent: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    checklist: list[str] = field(default_factory=list)
    rationale: str = ""
    flagged: bool = False
    client_id: str = ""
    version: int | None = None
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.errors

    def label(self) -> dict:
        return {
            "chosen": self.chosen,
            "equivalent": self.equivalent,
            "invalid": self.invalid,
            "checklist": self.checklist,
        }


def parse_step_form(data: QueryDict, *, n_checklist: int, editing: bool) -> StepForm:
    form = StepForm(
        chosen=data.get("chosen", "").strip(),
        equivalent=list(dict.fromkeys(data.getlist("equivalent"))),
        invalid=list(dict.fromkeys(data.getlist("invalid"))),
        checklist=[data.get(f"check_{i}", "") for i in range(n_checklist)],
        rationale=data.get("rationale", "").strip(),
        flagged=data.get("flagged") in ("on", "1", "true"),
        client_id=data.get("client_id", "").strip(),
    )
    if not form.chosen:
        form.errors["chosen"] = "Pick the best candidate."
    if any(mark not in dict(MARKS) for mark in form.checklist):
        form.errors["checklist"] = "Mark every checklist item Yes, In progress or No."
    if editing:
        try:
            form.version = int(data.get("version", ""))
        except ValueError:
            form.errors["version"] = "The form lost its version number; reload the page and edit again."
    else:
        try:
            form.client_id = str(uuid.UUID(form.client_id))
        except ValueError:
            form.errors["client_id"] = "The form lost its submission id; reload the page and label again."
    return form


def initial_step_form(annotation) -> StepForm:
    if annotation is None:
        return StepForm(client_id=str(uuid.uuid4()))
    label = annotation.label
    return StepForm(
        chosen=label.get("chosen", ""),
        equivalent=list(label.get("equivalent") or ()),
        invalid=list(label.get("invalid") or ()),
        checklist=list(label.get("checklist") or ()),
        rationale=annotation.rationale,
        flagged=annotation.flagged,
        version=annotation.version,
    )


def step_service_errors(errors: dict) -> dict[str, str]:
    return {
        (k if k in ("chosen", "equivalent", "invalid", "checklist") else "label"): str(v)
        for k, v in errors.items()
    }


def step_context(request, access, *, annotator_id: int | None, form=None, form_error="", notice="") -> dict:
    """The step page's template context, less what every labeling page shares."""
    project, item = request.project, access.item
    order = candidate_order(item=item, annotator_id=annotator_id)
    view = step_view(item=item, order=order, links=Links(project.slug, item.pk), staff=annotator_id is None)
    form = form or initial_step_form(access.annotation)
    rows = [
        {
            "index": i,
            "title": str(c.get("title") or ""),
            "mark": form.checklist[i] if i < len(form.checklist) else "",
        }
        for i, c in enumerate(view.checklist)
    ]
    return {
        "project": project,
        "item": item,
        "role": request.project_role,
        "staff": access.staff,
        "mode": access.mode,
        "access": access,
        "view": view,
        "order": order,
        "form": form,
        "checklist_rows": rows,
        "marks": MARKS,
        "form_error": form_error,
        "notice": notice,
        "page_loaded_at": request.POST.get("page_loaded_at", "") if form_error else "",
    }
