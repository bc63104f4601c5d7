"""What the step page shows of the item (Web-Shepherd): task, filmstrip of earlier steps, the
current observation (screenshot with element boxes, URL, accessibility tree) and the candidate
actions in a per-annotator order.

Candidate order is recomputed here on every request from (item, annotator), never read from the
client. Gold (item.gold) and each candidate's source are never put into the annotator's view."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from annotation.models import Item

from ..messages import Links, MediaView
from ..text import pretty_json
from .elements import AxLine, Box, ax_lines, element_boxes, screenshot_size


def candidate_order(*, item: Item, annotator_id: int | None) -> list[str]:
    """Candidate ids in display order: sha256 per (item, annotator, id); stored order for staff."""
    ids = [str(c.get("id")) for c in candidates_of(item)]
    if annotator_id is None:
        return ids
    return sorted(ids, key=lambda cid: hashlib.sha256(f"{item.pk}:{annotator_id}:{cid}".encode()).hexdigest())


def candidates_of(item: Item) -> list[dict]:
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
    obs_shot: MediaView | None  # the current screenshot, the one element boxes are drawn on
    obs_after: MediaView | None
    axtree: str
    ax_lines: list[AxLine]
    boxes: list[Box]
    boxes_skipped: int
    checklist: list[dict]  # the imported checklist (version 1); the page shows the latest version
    candidates: list[dict]  # {"n", "id", "thought", "name", "args"} in display order
    gold: str  # staff only


def _shot(obs: dict, links: Links, key: str = "screenshot") -> MediaView | None:
    path = obs.get(key)
    return MediaView(path=str(path), url=links.media(path), video=False, label=key) if path else None


def _call_text(call: dict) -> str:
    fn = call.get("function") if isinstance(call.get("function"), dict) else call
    return f"{fn.get('name', '')}({pretty_json(fn.get('arguments'))})"


def _frames(messages: list[dict], links: Links) -> list[Frame]:
    """One frame per earlier action, with the screenshot of the page it led to."""
    frames: list[Frame] = []
    for m in messages:
        if m.get("role") == "assistant":
            calls = [_call_text(c) for c in m.get("tool_calls") or () if isinstance(c, dict)]
            text = " ".join(calls) or str(m.get("content") or "")
            frames.append(Frame(len(frames) + 1, text, "", None))
        elif isinstance(m.get("observation"), dict) and frames and frames[-1].shot is None:
            obs = m["observation"]
            frames[-1].url, frames[-1].shot = str(obs.get("url") or ""), _shot(obs, links)
    return frames


def step_view(*, item: Item, order: list[str], links: Links, staff: bool) -> StepView:
    messages = item.trajectory_first.messages if item.trajectory_first is not None else []
    messages = [m for m in messages or () if isinstance(m, dict)]
    observed = [m for m in messages if isinstance(m.get("observation"), dict)]
    last = observed[-1]["observation"] if observed else {}
    by_id = {str(c.get("id")): c for c in candidates_of(item)}
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
    shot = _shot(last, links)
    has_elements = isinstance(last.get("elements"), list) and bool(last["elements"]) and shot is not None
    boxes, skipped = element_boxes(last, screenshot_size(last, links.slug)) if has_elements else ([], 0)
    axtree = str(last.get("axtree") or "")
    return StepView(
        task={
            k: str(getattr(item.task, k, "") or "")
            for k in ("instruction", "website", "start_url", "difficulty")
        },
        frames=_frames(messages, links),
        obs_url=str(last.get("url") or ""),
        obs_shot=shot,
        obs_after=_shot(last, links, "screenshot_after"),
        axtree=axtree,
        ax_lines=ax_lines(axtree),
        boxes=boxes,
        boxes_skipped=skipped,
        checklist=[c for c in (item.payload or {}).get("checklist") or () if isinstance(c, dict)],
        candidates=candidates,
        gold=str((item.gold or {}).get("chosen", "")) if staff else "",
    )
